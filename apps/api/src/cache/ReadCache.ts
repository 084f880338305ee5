/**
 * The product reads, ready to send (docs/operations.md, "The read cache"): for
 * each read key (readKeys.ts) the encoded body, its ETag and its compressed
 * variants (prepared.ts), made once per change of the product instead of once
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
 */
import { getHeapStatistics } from "node:v8"
import { Context, Deferred, Effect, Layer, Schedule } from "effect"
import { type ProductChange, ProductChanges, type ProductId } from "@productdir/domain"
import type { ReadError } from "@productdir/usecases"
import { ApiConfig } from "../ApiConfig.ts"
import type { Prepared } from "../http/prepared.ts"
import { ProductReads } from "./productReads.ts"
import { productIdOf, type ReadKind, readKey, refOfKey } from "./readKeys.ts"

/**
 * What an entry costs besides its bytes: its key, its place in the maps, the
 * response object and its buffers' handles, in V8's heap (measured: about
 * 850 bytes an entry with 20,000 entries). Counted in the budget, so a cache of
 * small bodies (a first page of no problems is about 150 bytes) is bounded in
 * entries too, and cannot outgrow the process's heap.
 */
export const ENTRY_OVERHEAD_BYTES = 1024

export interface CacheStats {
  readonly hits: number
  readonly misses: number
  readonly evictions: number
  readonly invalidations: number
  readonly flushes: number
  readonly refreshes: number
  readonly entries: number
  readonly bytes: number
  readonly budget: number
}

interface Entry {
  /** The key as first stored: the one string the maps share. */
  readonly key: string
  readonly productId: ProductId
  readonly prepared: Prepared
  size: number
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
>()("@productdir/api/ReadCache") {}

export const make = (budget: number) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const { load } = yield* ProductReads
    const entries = new Map<string, Entry>()
    const byProduct = new Map<ProductId, Set<string>>()
    const flights = new Map<string, Flight>()
    // Change epochs: every change moves it; a product remembers the epoch of its last change while loads are in flight.
    let epoch = 0
    let lastFlush = 0
    const changedAt = new Map<ProductId, number>()
    let bytes = 0
    const counts = { hits: 0, misses: 0, evictions: 0, invalidations: 0, flushes: 0, refreshes: 0 }
    const services = yield* Effect.context<never>()

    const drop = (key: string) => {
      const entry = entries.get(key)
      if (entry === undefined) return
      entries.delete(key)
      bytes -= entry.size
      const keys = byProduct.get(entry.productId)
      keys?.delete(entry.key)
      if (keys?.size === 0) byProduct.delete(entry.productId)
    }

    const evict = () => {
      // A Map iterates in insertion order, and a hit re-inserts: the first key is the least recently used.
      while (bytes > budget) {
        const oldest = entries.keys().next()
        if (oldest.done === true) break
        drop(oldest.value)
        counts.evictions++
      }
    }

    const onChange = (change: ProductChange) => {
      epoch++
      if (change._tag === "Everything") {
        lastFlush = epoch
        entries.clear()
        byProduct.clear()
        bytes = 0
        counts.flushes++
        return
      }
      for (const id of change.ids) {
        if (flights.size > 0) changedAt.set(id, epoch)
        for (const key of byProduct.get(id) ?? []) {
          drop(key)
          counts.invalidations++
          refresh(key, id)
        }
        if (running?.productId === id) refresh(running.key, id)
      }
    }

    /**
     * Refresh ahead: a read the cache held is loaded again after its product
     * changes, so the next request for it is a hit, not a miss that waits on the
     * store. Refreshes wait in a queue (a key once, however often its product
     * changed) and run one at a time: they use what the store has to spare and
     * never crowd out the requests, votes included.
     */
    const queued = new Map<string, ProductId>()
    let draining = false
    // The refresh being loaded: a change of its product meanwhile means its result will not be kept, so it goes again.
    let running: { readonly key: string; readonly productId: ProductId } | undefined
    const drain: Effect.Effect<void> = Effect.suspend(() => {
      const next = queued.entries().next()
      if (next.done === true) {
        draining = false
        return Effect.void
      }
      const [key, productId] = next.value
      queued.delete(key)
      counts.refreshes++
      running = { key, productId }
      return Effect.andThen(
        Effect.ignore(get(key, productId)),
        Effect.suspend(() => {
          running = undefined
          return drain
        })
      )
    })
    const refresh = (key: string, productId: ProductId) => {
      queued.set(key, productId)
      if (draining) return
      draining = true
      Effect.runForkWith(services)(drain.pipe(Effect.forkIn(scope)))
    }

    /** Whether a load that started at `started` can stand for product `id` now (no change it could have missed). */
    const current = (started: number, id: ProductId | undefined) =>
      lastFlush <= started && (id === undefined ? epoch === started : (changedAt.get(id) ?? 0) <= started)

    const keep = (key: string, productId: ProductId, prepared: Prepared) => {
      const size = prepared.bytes() + ENTRY_OVERHEAD_BYTES
      if (size > budget) return
      drop(key)
      entries.set(key, { key, productId, prepared, size })
      let keys = byProduct.get(productId)
      if (keys === undefined) {
        keys = new Set()
        byProduct.set(productId, keys)
      }
      keys.add(key)
      bytes += size
      evict()
    }

    const peek = (key: string): Prepared | undefined => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      entries.delete(entry.key)
      entries.set(entry.key, entry)
      counts.hits++
      return entry.prepared
    }

    /** The read of `key`; `productId` names its product when the key holds its id. */
    const get = (key: string, productId: ProductId | undefined) =>
      Effect.suspend((): Effect.Effect<Prepared, ReadError> => {
        const { kind, ref } = refOfKey(key)
        if (budget <= 0) return Effect.map(load(kind, ref), (loaded) => loaded.prepared)
        const hit = peek(key)
        if (hit !== undefined) return Effect.succeed(hit)
        const flight = flights.get(key)
        if (flight !== undefined && current(flight.started, flight.productId)) return Deferred.await(flight.deferred)
        counts.misses++
        return Effect.gen(function* () {
          // Every change from now on moves the epoch past this: one the load may have missed.
          const started = epoch
          const deferred = yield* Deferred.make<Prepared, ReadError>()
          flights.set(key, { deferred, started, productId })
          const settle = Effect.sync(() => {
            if (flights.get(key)?.deferred === deferred) flights.delete(key)
            if (flights.size === 0) changedAt.clear()
          })
          yield* load(kind, ref).pipe(
            Effect.map((loaded) => {
              if (current(started, loaded.productId)) keep(key, loaded.productId, loaded.prepared)
              return loaded.prepared
            }),
            Deferred.into(deferred),
            Effect.ensuring(settle),
            Effect.forkIn(scope)
          )
          return yield* Deferred.await(deferred)
        })
      })

    const read = (kind: ReadKind, ref: string) => get(readKey(kind, ref), productIdOf(ref))

    const recharge = (key: string) => {
      const entry = entries.get(key)
      if (entry === undefined) return
      const size = entry.prepared.bytes() + ENTRY_OVERHEAD_BYTES
      if (size === entry.size) return
      bytes += size - entry.size
      entry.size = size
      evict()
    }

    const stats = (): CacheStats => ({ ...counts, entries: entries.size, bytes, budget })

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
