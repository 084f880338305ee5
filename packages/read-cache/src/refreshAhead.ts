/**
 * Refresh ahead: a read the cache held is loaded again after its product changes, so the next
 * request for it is a hit, not a miss that waits on the store. Refreshes wait in a queue (a key once,
 * however often its product changed) and run one at a time: they use what the store has to spare and
 * never crowd out the requests, votes included. A refresh that fails is logged and not retried: the
 * next request loads the read itself.
 *
 * A key is refreshed at most once per MIN_INTERVAL_MS. A product voted on many times a second (a viral
 * product) changes again before each refresh of it lands: each would be thrown away (a load that
 * overlaps a change is not kept) and queued again, so the process would load its reads back to back for
 * nothing, a store read, an encoding and a hash each, beside the votes. Waiting changes no answer: the
 * changed entry is gone at once, and a request meanwhile loads the read itself, as any miss does.
 */
import { Cause, Clock, Effect, type Scope } from "effect"
import type { ProductId } from "@productdir/domain"

/** The least time between the starts of two refreshes of one key. */
export const MIN_INTERVAL_MS = 100

export interface RefreshAhead {
  /** Queues `key` (a read of `productId`) to be loaded again. */
  readonly refresh: (key: string, productId: ProductId) => void
  /** The key being loaded now, and its product: a change of it meanwhile queues it again. */
  readonly running: () => { readonly key: string; readonly productId: ProductId } | undefined
  readonly count: () => number
}

/** A queue that loads with `load`, in fibers of `scope`, with the services `context` holds. */
export const makeRefreshAhead = <E>(
  load: (key: string, productId: ProductId) => Effect.Effect<unknown, E>,
  scope: Scope.Scope
): Effect.Effect<RefreshAhead> =>
  Effect.gen(function* () {
    const services = yield* Effect.context<never>()
    const queued = new Map<string, ProductId>()
    /** When each key's last refresh started, oldest first; forgotten once older than the interval. */
    const started = new Map<string, number>()
    let draining = false
    let running: { readonly key: string; readonly productId: ProductId } | undefined
    let count = 0

    /** One refresh, or a wait until one may start; false when the queue is empty. */
    const step: Effect.Effect<boolean> = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      for (const [key, at] of started) {
        if (now - at < MIN_INTERVAL_MS) break
        started.delete(key)
      }
      // The first queued key not refreshed within the interval; else how long until one may be.
      let next: readonly [string, ProductId] | undefined
      let wait = Number.POSITIVE_INFINITY
      for (const [key, productId] of queued) {
        const at = started.get(key)
        if (at === undefined) {
          next = [key, productId]
          break
        }
        wait = Math.min(wait, at + MIN_INTERVAL_MS - now)
      }
      if (next === undefined) {
        // In the same turn as the look at the queue: a key queued after it starts a drain of its own.
        if (queued.size === 0) {
          draining = false
          return false
        }
        yield* Effect.sleep(wait)
        return true
      }
      const [key, productId] = next
      queued.delete(key)
      // Absent (pruned above, or never there): set, it goes last, so the map stays oldest first.
      started.set(key, now)
      count++
      running = { key, productId }
      yield* load(key, productId).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.void
            : Effect.logWarning(`read cache: refreshing ${key} failed; the next request for it loads it`, Cause.squash(cause))
        )
      )
      running = undefined
      return true
    })

    // The next step in tail position: a long queue runs in constant memory.
    const drain: Effect.Effect<void> = Effect.suspend(() => Effect.flatMap(step, (more) => (more ? drain : Effect.void)))

    return {
      refresh: (key, productId) => {
        queued.set(key, productId)
        if (draining) return
        draining = true
        Effect.runForkWith(services)(drain.pipe(Effect.forkIn(scope)))
      },
      running: () => running,
      count: () => count
    }
  })
