/**
 * The inputs the contract's behaviours work on. Every value comes from one
 * seeded generator: CONTRACT_SEED picks it (a fixed default), and a failing
 * behaviour prints it, so any failure can be replayed exactly.
 */
import { Effect } from "effect"
import {
  CatalogStore,
  fromImportRecord,
  type ListedProduct,
  type ListQuery,
  type ProductId,
  type ProductInput,
  type Slug
} from "@productdir/domain"
import { generateRecord, seeded } from "@productdir/fixtures"

export const CONTRACT_SEED = Number(process.env.CONTRACT_SEED ?? 20261122)

export const rng = seeded(CONTRACT_SEED)
let counter = 0

/** A fresh product input; `category` set to a unique label keeps a behaviour to its own products. */
export const freshInput = (
  overrides: {
    name?: string
    category?: string
    seed?: { up: number; down: number }
    slug?: Slug
    summary?: string
    features?: ReadonlyArray<string>
  } = {}
): ProductInput => {
  const n = ++counter
  const record = generateRecord(rng.int(1, 1_000_000), n)
  const base = fromImportRecord({ ...record, id: rng.uuid() as ProductId }, rng.uuid() as ProductId).input
  return {
    ...base,
    slug: overrides.slug,
    seed: overrides.seed ?? { up: 0, down: 0 },
    content: {
      ...base.content,
      name: overrides.name ?? `${base.content.name} ${rng.uuid().slice(0, 8)}`,
      category: overrides.category ?? base.content.category,
      ...(overrides.summary !== undefined ? { ai_summary: overrides.summary } : {}),
      ...(overrides.features !== undefined ? { key_features: overrides.features, ai_features: [], recommended_for: [] } : {})
    }
  }
}

/**
 * A made-up word of its own (consonant, vowel, …, consonant): pronounceable, so
 * English stemming treats it as a word, and unlike anything a record holds.
 */
export const madeUpWord = (syllables = 4): string => {
  const consonants = "bdfgklmnprtvz"
  const vowels = "aeiou"
  let word = ""
  for (let i = 0; i < syllables; i++) word += rng.pick([...consonants]) + rng.pick([...vowels])
  return word + rng.pick([...consonants])
}

export const uniqueCategory = () => `Contract ${rng.uuid().slice(0, 12)}`

export const listAll = (query: Omit<ListQuery, "cursor">) =>
  Effect.gen(function* () {
    const store = yield* CatalogStore
    const seen: Array<ListedProduct> = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = yield* store.list({ ...query, cursor })
      seen.push(...page.items)
      cursor = page.nextCursor ?? undefined
      pages++
    } while (cursor !== undefined && pages < 1000)
    return { items: seen, pages }
  })

export const upsertOne = (input: ProductInput) => CatalogStore.use((s) => s.upsert([input])).pipe(Effect.map((o) => o[0]!))
