/** CatalogStore over the in-memory state. */
import { Clock, Effect, Layer, Option, Result, Stream } from "effect"
import {
  CatalogStore,
  type CategoryCount,
  canonicalProductId,
  compareSortKeys,
  decodeCursor,
  encodeCursor,
  firstFreeSlug,
  type InvalidCursor,
  type ListQuery,
  type Product,
  type ProductId,
  type ProductInput,
  sameContent,
  searchTextOf,
  searchTokens,
  slugify,
  sortKeyOf,
  tallyEquals,
  addTally,
  type UpsertOutcome,
  type UpsertStatus
} from "@productdir/domain"
import { announce, findLive, isLive, MemoryState, type State } from "./State.ts"

const isUnchanged = (existing: Product, input: ProductInput): boolean =>
  sameContent(existing.content, input.content) && tallyEquals(existing.seed, input.seed) && existing.removedAt === null

const upsertOne = (state: State, input: ProductInput, now: Date): UpsertOutcome => {
  const id = canonicalProductId(input.id)
  const existing = state.products.get(id)
  if (existing === undefined) {
    const slug = firstFreeSlug(input.slug ?? slugify(input.content.name), (s) => state.slugs.has(s))
    state.slugs.set(slug, id)
    state.products.set(id, {
      id,
      slug,
      content: input.content,
      seed: input.seed,
      counters: input.seed,
      version: 1,
      updatedAt: now,
      removedAt: null
    })
    return { id, slug, status: "created" }
  }
  if (isUnchanged(existing, input)) return { id, slug: existing.slug, status: "unchanged" }
  const seedDelta = { up: input.seed.up - existing.seed.up, down: input.seed.down - existing.seed.down }
  state.products.set(id, {
    ...existing,
    content: input.content,
    seed: input.seed,
    counters: addTally(existing.counters, seedDelta),
    version: existing.version + 1,
    updatedAt: now,
    removedAt: null
  })
  return { id, slug: existing.slug, status: "updated" }
}

const matches =
  (query: ListQuery, tokens: ReadonlyArray<string>) =>
  (p: Product): boolean => {
    if (query.category !== undefined && p.content.category !== query.category) return false
    if (query.updatedSince !== undefined && p.updatedAt < query.updatedSince) return false
    if (tokens.length === 0) return true
    const words = searchTokens(searchTextOf(p))
    return tokens.every((t) => words.some((w) => w.startsWith(t)))
  }

const make = (state: State) =>
  CatalogStore.of({
    find: (ref) => Effect.suspend(() => Effect.fromResult(findLive(state, ref))),
    upsert: (inputs) =>
      Effect.map(Clock.currentTimeMillis, (millis) => {
        const now = new Date(millis)
        const outcomes = inputs.map((input) => upsertOne(state, input, now))
        announce(
          state,
          outcomes.filter((o) => o.status !== "unchanged").map((o) => o.id)
        )
        return outcomes
      }),
    preview: (inputs) =>
      Effect.sync(() => {
        // Later inputs see earlier ones of the same batch, as upsert does.
        const seen = new Map<string, ProductInput>()
        return inputs.map((input): UpsertStatus => {
          const id = canonicalProductId(input.id)
          const before = seen.get(id)
          seen.set(id, input)
          if (before !== undefined) {
            return sameContent(before.content, input.content) && tallyEquals(before.seed, input.seed) ? "unchanged" : "updated"
          }
          const existing = state.products.get(id)
          if (existing === undefined) return "created"
          return isUnchanged(existing, input) ? "unchanged" : "updated"
        })
      }),
    list: (query) =>
      Effect.suspend(() => {
        let after = undefined as ReturnType<typeof sortKeyOf> | undefined
        if (query.cursor !== undefined) {
          const key = decodeCursor(query.cursor, query.sort)
          if (Result.isFailure(key)) return Effect.fail<InvalidCursor>(key.failure)
          after = key.success
        }
        const tokens = searchTokens(query.q ?? "")
        const keyed = [...state.products.values()]
          .filter((p) => isLive(p) && matches(query, tokens)(p))
          .map((p) => ({ p, key: sortKeyOf(query.sort, p) }))
          .filter(({ key }) => after === undefined || compareSortKeys(key, after) > 0)
          .sort((a, b) => compareSortKeys(a.key, b.key))
        const page = keyed.slice(0, query.limit)
        const last = page.at(-1)
        return Effect.succeed({
          items: page.map(({ p }) => p),
          nextCursor: keyed.length > query.limit && last !== undefined ? encodeCursor(last.key) : null
        })
      }),
    categories: Effect.sync(() => {
      const counts = new Map<string, number>()
      for (const p of state.products.values()) {
        if (isLive(p)) counts.set(p.content.category, (counts.get(p.content.category) ?? 0) + 1)
      }
      return [...counts]
        .map(([category, count]): CategoryCount => ({ category, count }))
        .sort((a, b) => (a.category < b.category ? -1 : a.category > b.category ? 1 : 0))
    }),
    remove: (ids) =>
      Effect.map(Clock.currentTimeMillis, (millis) => {
        const now = new Date(millis)
        const removed: Array<ProductId> = []
        for (const raw of ids) {
          const product = state.products.get(canonicalProductId(raw))
          if (isLive(product)) {
            state.products.set(product.id, { ...product, removedAt: now })
            removed.push(product.id)
          }
        }
        announce(state, removed)
        return removed.length
      }),
    absentFrom: (isKept) =>
      Stream.fromIterableEffect(Effect.sync(() => [...state.products.values()].filter((p) => isLive(p) && !isKept(p.id)).map((p) => p.id))),
    scan: (batchSize) =>
      Stream.paginate(undefined as string | undefined, (after) =>
        Effect.sync(() => {
          const page = [...state.products.values()]
            .filter((p) => isLive(p) && (after === undefined || p.id > after))
            .sort((a, b) => (a.id < b.id ? -1 : 1))
            .slice(0, batchSize)
          const last = page.at(-1)
          return [page, page.length === batchSize && last ? Option.some(last.id) : Option.none()] as const
        })
      ),
    ping: Effect.void
  })

export const layer = Layer.effect(CatalogStore, MemoryState.useSync(make))
