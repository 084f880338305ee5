/**
 * In-memory implementations of every store service. Real implementations,
 * not test doubles: other projects and the test suites use them. Every
 * operation runs as one synchronous step, so each is atomic on the JS event
 * loop and concurrent votes are counted exactly without locks.
 */
import { Context, Effect, Layer, Option, Result, Semaphore, Stream } from "effect"
import { CatalogStore, type CategoryCount } from "./CatalogStore.ts"
import { InvalidCursor, ProductNotFound, ProductRemoved } from "./errors.ts"
import { canonicalProductId, isProductId, type ProductId } from "./ids.ts"
import { JobLock, type LockOutcome } from "./JobLock.ts"
import {
  compareSortKeys,
  decodeCursor,
  encodeCursor,
  type ListQuery,
  searchTextOf,
  searchTokens,
  sortKeyOf
} from "./Listing.ts"
import { normalizeReason, type ReportedProblem, tidyReason } from "./Problem.ts"
import { ProblemStore } from "./ProblemStore.ts"
import type { Product, ProductInput, UpsertOutcome, UpsertStatus } from "./Product.ts"
import { sameContent } from "./ProductContent.ts"
import type { CounterSnapshot, Repair } from "./Reconciliation.ts"
import { expectedCounters, hasDrifted } from "./Reconciliation.ts"
import { firstFreeSlug, slugify } from "./slug.ts"
import { addTally, type Tally, tallyEquals } from "./trust.ts"
import { type CastResult, type CastVote, type VoteDirection, voteTransition } from "./Vote.ts"
import { Settings } from "./Settings.ts"
import { VoteLedger } from "./VoteLedger.ts"

interface LedgerVote {
  direction: VoteDirection
  readonly createdAt: Date
  updatedAt: Date
}

interface Report {
  readonly summary: string
  readonly at: Date
}

/** Everything the in-memory store holds. Exposed through `Direct` for tests that edit it behind the services' backs. */
export interface State {
  readonly products: Map<string, Product>
  readonly slugs: Map<string, ProductId>
  /** product id -> voter -> live vote */
  readonly votes: Map<string, Map<string, LedgerVote>>
  /** product id -> normalised reason -> voter -> report */
  readonly reports: Map<string, Map<string, Map<string, Report>>>
  readonly settings: Map<string, string>
}

export const emptyState = (): State => ({ products: new Map(), slugs: new Map(), votes: new Map(), reports: new Map(), settings: new Map() })

/** Direct access to the state, as SQL is to the Postgres store: for drift tests and fixtures. */
export class Direct extends Context.Service<Direct, State>()("@productdir/domain/MemoryStore/Direct") {}

const isLive = (p: Product | undefined): p is Product => p !== undefined && p.removedAt === null

const resolve = (state: State, ref: string): Product | undefined => {
  const id = isProductId(ref) ? canonicalProductId(ref) : state.slugs.get(ref)
  return id === undefined ? undefined : state.products.get(id)
}

const findLive = (state: State, ref: string): Result.Result<Product, ProductNotFound | ProductRemoved> => {
  const product = resolve(state, ref)
  if (product === undefined) return Result.fail(new ProductNotFound({ ref }))
  if (product.removedAt !== null) {
    return Result.fail(new ProductRemoved({ id: product.id, removedAt: product.removedAt.toISOString() }))
  }
  return Result.succeed(product)
}

const ledgerTally = (state: State, id: string): Tally => {
  let up = 0
  let down = 0
  for (const vote of state.votes.get(id)?.values() ?? []) vote.direction === "up" ? up++ : down++
  return { up, down }
}

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

const matches = (query: ListQuery, tokens: ReadonlyArray<string>) => (p: Product): boolean => {
  if (query.category !== undefined && p.content.category !== query.category) return false
  if (query.updatedSince !== undefined && p.updatedAt < query.updatedSince) return false
  if (tokens.length === 0) return true
  const words = searchTokens(searchTextOf(p))
  return tokens.every((t) => words.some((w) => w.startsWith(t)))
}

const makeCatalog = (state: State) =>
  CatalogStore.of({
    find: (ref) => Effect.suspend(() => Effect.fromResult(findLive(state, ref))),
    upsert: (inputs) =>
      Effect.sync(() => {
        const now = new Date()
        return inputs.map((input) => upsertOne(state, input, now))
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
      Effect.sync(() => {
        const now = new Date()
        let removed = 0
        for (const raw of ids) {
          const product = state.products.get(canonicalProductId(raw))
          if (isLive(product)) {
            state.products.set(product.id, { ...product, removedAt: now })
            removed++
          }
        }
        return removed
      }),
    absentFrom: (isKept) =>
      Stream.fromIterableEffect(
        Effect.sync(() => [...state.products.values()].filter((p) => isLive(p) && !isKept(p.id)).map((p) => p.id))
      ),
    scan: (batchSize) =>
      Stream.paginate(undefined as string | undefined, (after) =>
        Effect.sync(() => {
          const page = [...state.products.values()]
            .filter((p) => isLive(p) && (after === undefined || p.id > after))
            .sort((a, b) => (a.id < b.id ? -1 : 1))
            .slice(0, batchSize)
          const last = page.at(-1)
          return [page, page.length === batchSize && last ? Option.some(last.id) : Option.none()] as const
        })),
    ping: Effect.void
  })

const castOne = (state: State, vote: CastVote): Result.Result<CastResult, ProductNotFound | ProductRemoved> => {
  const found = findLive(state, vote.entity)
  if (Result.isFailure(found)) return Result.fail(found.failure)
  const product = found.success
  const now = new Date()
  const ballots = state.votes.get(product.id) ?? new Map<string, LedgerVote>()
  state.votes.set(product.id, ballots)
  const previous = ballots.get(vote.voter)
  const { delta, status } = voteTransition(previous?.direction, vote.direction)
  if (previous === undefined) ballots.set(vote.voter, { direction: vote.direction, createdAt: now, updatedAt: now })
  else if (status === "changed") Object.assign(previous, { direction: vote.direction, updatedAt: now })
  const counters = addTally(product.counters, delta)
  const updated = { ...product, counters }
  state.products.set(product.id, updated)
  recordReport(state, product.id, vote, now)
  return Result.succeed({ product: updated, direction: vote.direction, status, counters })
}

/** A down vote with a reason reports a problem; moving to up withdraws the voter's reports on that product. */
const recordReport = (state: State, id: ProductId, vote: CastVote, now: Date): void => {
  const byKey = state.reports.get(id) ?? new Map<string, Map<string, Report>>()
  state.reports.set(id, byKey)
  if (vote.direction === "up") {
    for (const voters of byKey.values()) voters.delete(vote.voter)
    return
  }
  if (vote.reason === undefined) return
  const key = normalizeReason(vote.reason)
  const voters = byKey.get(key) ?? new Map<string, Report>()
  byKey.set(key, voters)
  if (!voters.has(vote.voter)) voters.set(vote.voter, { summary: tidyReason(vote.reason), at: now })
}

const makeLedger = (state: State) =>
  VoteLedger.of({
    cast: (vote) => Effect.suspend(() => Effect.fromResult(castOne(state, vote))),
    snapshots: (batchSize) =>
      Stream.paginate(undefined as string | undefined, (after) =>
        Effect.sync(() => {
          const page = [...state.products.values()]
            .filter((p) => after === undefined || p.id > after)
            .sort((a, b) => (a.id < b.id ? -1 : 1))
            .slice(0, batchSize)
            .map((p): CounterSnapshot => ({ id: p.id, seed: p.seed, stored: p.counters, ledger: ledgerTally(state, p.id) }))
          const last = page.at(-1)
          return [[page], page.length === batchSize && last ? Option.some(last.id) : Option.none()] as const
        })).pipe(Stream.filter((page) => page.length > 0)),
    repair: (drifted) =>
      Effect.sync(() => {
        // One synchronous step: nothing can move between the check and the write.
        const repairs: Array<Repair> = []
        for (const snapshot of drifted) {
          const product = state.products.get(canonicalProductId(snapshot.id))
          if (product === undefined) continue
          const current = { id: product.id, seed: product.seed, stored: product.counters, ledger: ledgerTally(state, product.id) }
          if (!hasDrifted(current)) continue
          const after = expectedCounters(current)
          state.products.set(product.id, { ...product, counters: after })
          repairs.push({ id: product.id, before: product.counters, after })
        }
        return repairs
      })
  })

const makeProblems = (state: State) =>
  ProblemStore.of({
    reported: (id) =>
      Effect.sync(() => {
        const out: Array<ReportedProblem> = []
        for (const [key, voters] of state.reports.get(id) ?? []) {
          const reports = [...voters.values()]
          if (reports.length === 0) continue
          const first = reports.reduce((a, b) => (b.at < a.at ? b : a))
          const last = reports.reduce((a, b) => (b.at > a.at ? b : a))
          out.push({ key, summary: first.summary, reports: reports.length, firstReportedAt: first.at, lastReportedAt: last.at })
        }
        return out
      })
  })

const makeLock = Effect.sync(() => {
  const locks = new Map<string, Semaphore.Semaphore>()
  const lockFor = (name: string) => {
    const existing = locks.get(name)
    if (existing) return existing
    const created = Semaphore.makeUnsafe(1)
    locks.set(name, created)
    return created
  }
  return JobLock.of({
    withLock: <A, E, R>(name: string, options: { readonly wait: boolean }, effect: Effect.Effect<A, E, R>) => {
      const lock = lockFor(name)
      const ran = Effect.map(effect, (value): LockOutcome<A> => ({ _tag: "Ran", value }))
      return options.wait
        ? lock.withPermit(ran)
        : Effect.map(lock.withPermitsIfAvailable(1)(ran), Option.getOrElse((): LockOutcome<A> => ({ _tag: "Busy" })))
    }
  })
})

const makeSettings = (state: State) =>
  Settings.of({
    getOrInit: (key, initial) =>
      Effect.sync(() => {
        if (!state.settings.has(key)) state.settings.set(key, initial)
        return state.settings.get(key)!
      })
  })

/** The in-process job lock alone, for stores that live in one process (embedded PGlite). */
export const layerJobLock: Layer.Layer<JobLock> = Layer.effect(JobLock, makeLock)

/** Every store service over one shared in-memory state, plus `Direct` access to it. */
export const layer: Layer.Layer<CatalogStore | VoteLedger | ProblemStore | JobLock | Settings | Direct> = Layer.effectContext(
  Effect.gen(function*() {
    const state = emptyState()
    const lock = yield* makeLock
    return Context.make(CatalogStore, makeCatalog(state)).pipe(
      Context.add(VoteLedger, makeLedger(state)),
      Context.add(ProblemStore, makeProblems(state)),
      Context.add(JobLock, lock),
      Context.add(Settings, makeSettings(state)),
      Context.add(Direct, state)
    )
  })
)
