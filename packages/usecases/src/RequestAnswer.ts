/**
 * A relevance search answered as an agent's request (docs/search.md): the request read (the domain's
 * readRequest), its candidates found by the store's index (its own words first, then what the vocabulary says
 * they also are, and, for "alternative to X" where the catalog has X, X's category), each described and judged
 * (answerRequest), and the answer paged by offset. The answer is a window of at most ANSWER_WINDOW products,
 * the best the store found: deterministic, so a cursor's next page is the same answer's next slice.
 */
import { Effect } from "effect"
import {
  answerRequest,
  type Answer,
  type DescriptionText,
  textOf,
  type CatalogStore,
  type ListedProduct,
  type ProductDescription,
  type RequestReading,
  readRequest,
  searchTokens,
  type StoreError,
  type InvalidCursor,
  type Vocabulary,
  MAX_QUERY_WORDS
} from "@productdir/domain"

/**
 * How many of the store's best matches for the request's own words an answer judges, and so the most it holds. Each
 * is read, described and judged: at a million products, sixteen connections of searches got 36 answers a second with
 * 100 of them, 48 with 50, 66 with 30 (docs/benchmarks.md); the judged set's answers are the same with 30 as with 100.
 */
export const ANSWER_WINDOW = 30
/** And for the other ways of saying them (synonyms, what a product named is): fewer, as they rank below the words. */
const MORE_WINDOW = 15

export interface AnswerQuery {
  readonly q: string
  readonly category: string | undefined
  readonly updatedSince: Date | undefined
}

const unique = (words: ReadonlyArray<string>) => [...new Set(words)]

/** The words a store is asked for: what the request says, then what it names, then the other ways of saying it. */
const lookups = (reading: RequestReading, vocabulary: Vocabulary): { readonly own: string; readonly more: string } => {
  const key = reading.concepts.filter((c) => !c.generic)
  const labels = key.flatMap((c) => searchTokens(c.label))
  const named = reading.alternativeTo === undefined ? [] : searchTokens(reading.alternativeTo)
  const kind = reading.alternativeTo === undefined ? undefined : vocabulary.products.get(named.join(" "))
  const kindWords = kind === undefined ? [] : searchTokens(kind)
  const generic = reading.concepts.filter((c) => c.generic).flatMap((c) => c.lookup)
  // Generic words only when nothing else is asked: they find everything, and push what is asked out of the window.
  const own = unique([...labels, ...named, ...(labels.length + named.length === 0 ? generic : [])]).slice(0, MAX_QUERY_WORDS)
  const more = unique([...kindWords, ...key.flatMap((c) => c.lookup)])
    .filter((w) => !own.includes(w))
    .slice(0, MAX_QUERY_WORDS)
  return { own: own.join(" "), more: more.join(" ") }
}

/** Whether a product's name is the one a request names: the same words, or the name starts with them ("pathwise"). */
const isNamed = (name: string, named: string) => {
  const have = searchTokens(name)
  const want = searchTokens(named)
  return want.length > 0 && want.every((w, i) => have[i] === w)
}

/** A product's description and its words, kept for the next answer that judges the product. */
interface Described {
  readonly version: number
  readonly description: ProductDescription
  readonly text: DescriptionText
  readonly size: number
}

/**
 * The descriptions answers read, kept by product id while their version holds (a description changes only with its
 * content, and the version with it), the least recently used dropped past `maxCharacters` of text: the same products
 * come back search after search, and reading and splitting their text again is most of an answer's work.
 */
export const makeDescriptionCache = (maxCharacters: number) => {
  const kept = new Map<string, Described>()
  let size = 0
  return {
    get: (product: ListedProduct): Described | undefined => {
      const found = kept.get(product.id)
      if (found === undefined || found.version !== product.version) return undefined
      kept.delete(product.id)
      kept.set(product.id, found)
      return found
    },
    set: (product: ListedProduct, description: ProductDescription) => {
      const text = textOf(description)
      const made: Described = {
        version: product.version,
        description,
        text,
        size: Object.values(description).reduce((sum: number, v) => sum + (typeof v === "string" ? v.length : 0), 0)
      }
      const before = kept.get(product.id)
      if (before !== undefined) size -= before.size
      kept.delete(product.id)
      kept.set(product.id, made)
      size += made.size
      for (const [id, old] of kept) {
        if (size <= maxCharacters) break
        kept.delete(id)
        size -= old.size
      }
      return made
    }
  }
}
export type DescriptionCache = ReturnType<typeof makeDescriptionCache>

/**
 * How much description text answers keep between them: 250,000 characters, some 500 products of a usual size (a
 * catalog's most searched). The API's heap is capped at 176 MB: eight million characters, kept with their words split
 * and stemmed, took it past the cap under sixteen concurrent searches at a million products.
 */
export const DESCRIPTION_CACHE_CHARACTERS = 250_000

export const answerQuery = (catalog: CatalogStore["Service"], vocabulary: Vocabulary, cache: DescriptionCache, query: AnswerQuery) =>
  Effect.gen(function* () {
    const reading = readRequest(query.q, vocabulary)
    const { own, more } = lookups(reading, vocabulary)
    const filters = { category: query.category, updatedSince: query.updatedSince, sort: "relevance" as const, limit: ANSWER_WINDOW }
    const found: Array<ListedProduct> = []
    const add = (items: ReadonlyArray<ListedProduct>) => {
      for (const p of items) if (!found.some((f) => f.id === p.id)) found.push(p)
    }
    if (own !== "") add((yield* catalog.list({ ...filters, q: own })).items)
    if (more !== "") add((yield* catalog.list({ ...filters, q: more, limit: MORE_WINDOW })).items)
    let target: ProductDescription | undefined
    if (reading.alternativeTo !== undefined) {
      const named = (yield* catalog.list({ q: reading.alternativeTo, sort: "relevance", limit: 5 })).items
      const product = named.find((p) => isNamed(p.content.name, reading.alternativeTo!))
      if (product !== undefined) {
        ;[target] = yield* catalog.describe([product.id])
        add((yield* catalog.list({ ...filters, sort: "trust", category: query.category ?? product.content.category })).items)
      }
    }
    // Kept descriptions at the products' current versions; the rest read in one statement.
    const kept = found.map((product) => cache.get(product))
    const read = new Map((yield* catalog.describe(found.filter((_, i) => kept[i] === undefined).map((p) => p.id))).map((d) => [d.id, d]))
    const candidates = found.flatMap((product, i) => {
      const fresh = read.get(product.id)
      const described = kept[i] ?? (fresh === undefined ? undefined : cache.set(product, fresh))
      return described === undefined ? [] : [{ product, description: described.description, text: described.text }]
    })
    const answer = answerRequest(reading, candidates, vocabulary, target)
    return { ...answer, items: answer.items.slice(0, ANSWER_WINDOW) }
  }) satisfies Effect.Effect<Answer, StoreError | InvalidCursor>
