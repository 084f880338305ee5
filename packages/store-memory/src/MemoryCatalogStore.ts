/** CatalogStore over the in-memory state. */
import { Clock, Effect, Layer, Option, Result, Stream } from "effect"
import {
  CatalogStore,
  type CategoryCount,
  canonicalProductId,
  describeProduct,
  compareCodePoints,
  compareSortKeys,
  decodeCursor,
  encodeCursor,
  firstFreeSlug,
  type InvalidCursor,
  type ListQuery,
  type Product,
  type ProductId,
  type ProductInput,
  type Ranked,
  sameContent,
  slugify,
  sortKeyOf,
  tallyEquals,
  addTally,
  emptyTally,
  SEED_WEIGHT,
  type UpsertOutcome,
  type UpsertStatus,
  ProductNotFound,
  type ProductRemoved,
  type VersionEntry,
  VersionConflict,
  VersionNotFound,
  weightedOf
} from "@productdir/domain"
import { operandsOf, rankOf } from "./search.ts"
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
      weighted: weightedOf(input.seed, emptyTally),
      version: 1,
      updatedAt: now,
      removedAt: null
    })
    return { id, slug, status: "created" }
  }
  if (isUnchanged(existing, input)) return { id, slug: existing.slug, status: "unchanged" }
  const seedDelta = { up: input.seed.up - existing.seed.up, down: input.seed.down - existing.seed.down }
  // Brought back by the change, it is no longer taken down. The version this change replaces is kept, as it was.
  state.takenDown.delete(id)
  const past = state.versions.get(id) ?? []
  past.push({ version: existing.version, content: existing.content, updatedAt: existing.updatedAt, supersededAt: now })
  state.versions.set(id, past)
  state.products.set(id, {
    ...existing,
    content: input.content,
    seed: input.seed,
    counters: addTally(existing.counters, seedDelta),
    weighted: addTally(existing.weighted, { up: seedDelta.up * SEED_WEIGHT, down: seedDelta.down * SEED_WEIGHT }),
    version: existing.version + 1,
    updatedAt: now,
    removedAt: null
  })
  const overwrote = state.editedBy.get(id)
  state.editedBy.delete(id)
  return { id, slug: existing.slug, status: "updated", ...(overwrote === undefined ? {} : { overwrote }) }
}

/** Categories match whatever their case, as in every store. */
const sameCategory = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase()

const filtered = (query: ListQuery, products: ReadonlyArray<Product>): ReadonlyArray<Ranked> => {
  const operands = query.q === undefined ? undefined : operandsOf(query.q, products)
  const ranked: Array<Ranked> = []
  for (const product of products) {
    if (query.category !== undefined && !sameCategory(product.content.category, query.category)) continue
    if (query.updatedSince !== undefined && product.updatedAt < query.updatedSince) continue
    if (operands === undefined) {
      ranked.push({ product, rank: 0 })
      continue
    }
    const rank = rankOf(product, operands)
    if (rank !== undefined) ranked.push({ product, rank })
  }
  return ranked
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
        const live = [...state.products.values()].filter(isLive)
        const keyed = filtered(query, live)
          .map((ranked) => ({ p: ranked.product, key: sortKeyOf(query.sort, ranked) }))
          .filter(({ key }) => after === undefined || compareSortKeys(key, after) > 0)
          .sort((a, b) => compareSortKeys(a.key, b.key))
        const page = keyed.slice(0, query.limit)
        const last = page.at(-1)
        return Effect.succeed({
          items: page.map(({ p }) => p),
          nextCursor: keyed.length > query.limit && last !== undefined ? encodeCursor(last.key) : null
        })
      }),
    edit: (input, expected, by) =>
      Effect.flatMap(Clock.currentTimeMillis, (millis) =>
        Effect.flatMap(
          Effect.fromResult(findLive(state, input.id)),
          (product): Effect.Effect<Product, ProductNotFound | ProductRemoved | VersionConflict> => {
            if (product.version !== expected) {
              return Effect.fail(new VersionConflict({ id: product.id, expected, current: product.version }))
            }
            const outcome = upsertOne(state, { ...input, id: product.id }, new Date(millis))
            if (outcome.status !== "unchanged") {
              state.editedBy.set(product.id, by)
              announce(state, [product.id])
            }
            return Effect.fromResult(findLive(state, product.id))
          }
        )
      ),
    versions: (ref, page) =>
      Effect.suspend(() =>
        Effect.map(Effect.fromResult(findLive(state, ref)), (product) => {
          const current: VersionEntry = { version: product.version, updatedAt: product.updatedAt, supersededAt: null }
          const all = [current, ...[...(state.versions.get(product.id) ?? [])].reverse()]
          return {
            product,
            versions: all.filter((v) => page.before === undefined || v.version < page.before).slice(0, page.limit)
          }
        })
      ),
    version: (ref, n) =>
      Effect.suspend(() =>
        Effect.flatMap(Effect.fromResult(findLive(state, ref)), (product) => {
          if (n === product.version) {
            return Effect.succeed({
              product,
              version: { version: n, content: product.content, updatedAt: product.updatedAt, supersededAt: null }
            })
          }
          const found = state.versions.get(product.id)?.find((v) => v.version === n)
          return found === undefined
            ? Effect.fail(new VersionNotFound({ id: product.id, version: n, current: product.version }))
            : Effect.succeed({ product, version: found })
        })
      ),
    describe: (ids) =>
      Effect.sync(() =>
        ids.flatMap((id) => {
          const product = state.products.get(canonicalProductId(id))
          return product === undefined || !isLive(product) ? [] : [describeProduct(product.id, product.content)]
        })
      ),
    slugsStartingWith: (prefix, limit) =>
      Effect.sync(() => {
        const start = prefix.toLowerCase()
        return [...state.products.values()]
          .filter((p) => isLive(p) && p.slug.startsWith(start))
          .map((p) => p.slug)
          .sort(compareCodePoints)
          .slice(0, limit)
      }),
    namedBySlugs: (slugs) =>
      Effect.sync(() =>
        slugs.flatMap((slug) => {
          const id = state.slugs.get(slug)
          const product = id === undefined ? undefined : state.products.get(id)
          return product === undefined || !isLive(product) ? [] : [{ id: product.id, slug: product.slug, name: product.content.name }]
        })
      ),
    categories: Effect.sync(() => {
      const counts = new Map<string, number>()
      for (const p of state.products.values()) {
        if (isLive(p)) counts.set(p.content.category, (counts.get(p.content.category) ?? 0) + 1)
      }
      return [...counts]
        .map(([category, count]): CategoryCount => ({ category, count }))
        .sort((a, b) => (a.category < b.category ? -1 : a.category > b.category ? 1 : 0))
    }),
    takeDown: (id, reason) =>
      Effect.flatMap(Clock.currentTimeMillis, (millis) => {
        const product = state.products.get(canonicalProductId(id))
        if (product === undefined) return Effect.fail(new ProductNotFound({ ref: id }))
        if (product.removedAt !== null) return Effect.succeed(false)
        state.products.set(product.id, { ...product, removedAt: new Date(millis) })
        state.takenDown.set(product.id, reason)
        announce(state, [product.id])
        return Effect.succeed(true)
      }),
    bringBack: (id) =>
      Effect.suspend(() => {
        const product = state.products.get(canonicalProductId(id))
        if (product === undefined) return Effect.fail(new ProductNotFound({ ref: id }))
        if (product.removedAt === null) return Effect.succeed(false)
        state.products.set(product.id, { ...product, removedAt: null })
        state.takenDown.delete(product.id)
        announce(state, [product.id])
        return Effect.succeed(true)
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
