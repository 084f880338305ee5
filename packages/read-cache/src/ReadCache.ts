/**
 * The product reads, ready to send (docs/operations.md, "The read cache"): for
 * each read key (readKeys.ts) the encoded body, its ETag and its compressed
 * variants (packages/edge/src/responses/preparedResponse.ts), made once per change of the product instead of once
 * per request.
 *
 * - Bounded by bytes (CACHE_BYTES; 0 turns it off), each entry's bookkeeping
 *   included, least recently used first out.
 * - Loaded by one lookup (ProductReads) from the key alone: an entry holds its
 *   bytes and nothing else, so tens of thousands of entries cost little heap.
 * - A miss is one load however many requests wait for it (single flight); the
 *   load runs on its own, so a client that hangs up does not fail the others.
 * - Freshness: the store's change feed (ProductChanges) drops a product's
 *   entries when it changes, in this process before the change returns, in the
 *   others within a poll; each dropped entry is then loaded again in the
 *   background, one at a time (refresh ahead), so a product that is read and
 *   voted on stays a hit. A load that overlaps a change of its product is
 *   answered but not kept, and no request joins a load older than the last
 *   change it could be missing.
 *
 * The parts, each tested on its own (apps/api/test/read-cache-parts.test.ts): the entries
 * and their byte budget (lru.ts), the change epochs (freshness.ts), the refresh
 * queue (refreshAhead.ts); this module joins them with single-flight loads.
 */
import { getHeapStatistics } from "node:v8"
import { Context, Deferred, Effect, Layer, Schedule } from "effect"
import { type ProductChange, ProductChanges, type ProductId } from "@productdir/domain"
import type { ReadError } from "@productdir/usecases"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import type { Prepared } from "@productdir/edge/responses/preparedResponse"
import { Freshness } from "./freshness.ts"
import { ByteBudgetLru } from "./lru.ts"
import { ProductReads } from "./productReads.ts"
import { makeRefreshAhead } from "./refreshAhead.ts"
import { productIdOf, type ReadKind, readKey, refOfKey } from "./readKeys.ts"

/**
 * What an entry costs besides its bytes: its key, its place in the maps, the
 * response object and its buffers' handles, in V8's heap (somewhat under a
 * KiB an entry, counted as one). Counted in the budget, so a cache of
 * small bodies (a first page of no problems is about 150 bytes) is bounded in
 * entries too, and cannot outgrow the process's heap.
 */
export const ENTRY_OVERHEAD_BYTES = 1024

export interface CacheStats {
  readonly hits: number
  readonly misses: number
  /** Requests that found their read being loaded already, and waited for that load. */
  readonly waits: number
  readonly evictions: number
  readonly invalidations: number
  readonly flushes: number
  readonly refreshes: number
  readonly entries: number
  readonly bytes: number
  readonly budget: number
}

interface Flight {
  readonly deferred: Deferred.Deferred<Prepared, ReadError>
  /** The change epoch the load started in. */
  readonly started: number
  /** The product, when the key names it (an id); else unknown until loaded (a slug). */
  readonly productId: ProductId | undefined
}

export class ReadCache extends Context.Service<
  ReadCache,
  {
    /** The ready response for `key` if it is cached (a hit), else undefined. */
    readonly peek: (key: string) => Prepared | undefined
    /** The response for a read of `ref`: cached, or loaded (once for every request that waits) and kept. */
    readonly read: (kind: ReadKind, ref: string) => Effect.Effect<Prepared, ReadError>
    /** After a response was sent: its prepared bytes may have grown by a coding; the budget is kept. */
    readonly recharge: (key: string) => void
    readonly stats: () => CacheStats
  }
>()("@productdir/read-cache/ReadCache") {}

export const make = (budget: number) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const { load } = yield* ProductReads
    const entries = new ByteBudgetLru<Prepared>(budget)
    const freshness = new Freshness()
    const flights = new Map<string, Flight>()
    const counts = { hits: 0, misses: 0, waits: 0, invalidations: 0, flushes: 0 }

    const sizeOf = (prepared: Prepared) => prepared.bytes() + ENTRY_OVERHEAD_BYTES

    const peek = (key: string): Prepared | undefined => {
      const hit = entries.get(key)
      if (hit !== undefined) counts.hits++
      return hit
    }

    /**
     * The read of `key`; `productId` names its product when the key holds its id. `asked`: a
     * request asked for it, and it counts as a hit, a miss (it starts a load) or a wait (it joins
     * one); a refresh (nobody asked) counts as a refresh only. Each request counts once, so
     * hits / (hits + misses + waits) is the share of requests the cache answered.
     */
    const get = (key: string, productId: ProductId | undefined, asked: boolean): Effect.Effect<Prepared, ReadError> =>
      Effect.suspend(() => {
        const { kind, ref } = refOfKey(key)
        if (budget <= 0) return Effect.map(load(kind, ref), (loaded) => loaded.prepared)
        const hit = asked ? peek(key) : entries.peek(key)
        if (hit !== undefined) return Effect.succeed(hit)
        const flight = flights.get(key)
        if (flight !== undefined && freshness.isCurrent(flight.started, flight.productId)) {
          if (asked) counts.waits++
          return Deferred.await(flight.deferred)
        }
        if (asked) counts.misses++
        return Effect.gen(function* () {
          // Every change from now on moves the epoch past this: one the load may have missed.
          const started = freshness.begin()
          const deferred = yield* Deferred.make<Prepared, ReadError>()
          flights.set(key, { deferred, started, productId })
          const settle = Effect.sync(() => {
            if (flights.get(key)?.deferred === deferred) flights.delete(key)
            freshness.end()
          })
          yield* load(kind, ref).pipe(
            Effect.map((loaded) => {
              // A load that overlapped a change of its product is answered, not kept.
              if (freshness.isCurrent(started, loaded.productId))
                entries.set(key, loaded.productId, loaded.prepared, sizeOf(loaded.prepared))
              return loaded.prepared
            }),
            Deferred.into(deferred),
            Effect.ensuring(settle),
            // The load runs on its own: a client that hangs up does not fail the others waiting for it.
            Effect.forkIn(scope)
          )
          return yield* Deferred.await(deferred)
        })
      })

    const refreshes = yield* makeRefreshAhead((key, productId) => get(key, productId, false), scope)

    const onChange = (change: ProductChange) => {
      freshness.record(change)
      if (change._tag === "Everything") {
        entries.clear()
        counts.flushes++
        return
      }
      for (const id of change.ids) {
        for (const key of entries.deleteProduct(id)) {
          counts.invalidations++
          refreshes.refresh(key, id)
        }
        const running = refreshes.running()
        if (running?.productId === id) refreshes.refresh(running.key, id)
      }
    }

    const read = (kind: ReadKind, ref: string) => get(readKey(kind, ref), productIdOf(ref), true)

    const recharge = (key: string) => {
      const prepared = entries.peek(key)
      if (prepared !== undefined) entries.resize(key, sizeOf(prepared))
    }

    const stats = (): CacheStats => ({
      ...counts,
      evictions: entries.evictions,
      refreshes: refreshes.count(),
      entries: entries.size,
      bytes: entries.bytes,
      budget
    })

    return { service: ReadCache.of({ peek, read, recharge, stats }), onChange }
  })

/** The cache of CACHE_BYTES, kept fresh by the store's change feed; its figures logged every minute at debug. */
export const layer = Layer.effect(
  ReadCache,
  Effect.gen(function* () {
    const config = yield* ApiConfig
    const { onChange, service } = yield* make(config.cacheBytes)
    if (config.cacheBytes > 0) yield* ProductChanges.use((changes) => changes.subscribe(onChange))
    // The bodies live outside V8's heap, their bookkeeping inside it: a budget near the heap's limit may not fit.
    const heapLimit = getHeapStatistics().heap_size_limit
    if (config.cacheBytes > heapLimit / 2) {
      const mb = (bytes: number) => Math.round(bytes / 1024 / 1024)
      yield* Effect.logWarning(
        `CACHE_BYTES (${mb(config.cacheBytes)} MB) is more than half of this process's heap limit (${mb(heapLimit)} MB): start node with a larger --max-old-space-size (docs/operations.md, "Memory")`
      )
    }
    yield* Effect.forkScoped(
      Effect.repeat(
        Effect.suspend(() => Effect.logDebug("read cache", service.stats())),
        Schedule.spaced("1 minute")
      )
    )
    return service
  })
)
