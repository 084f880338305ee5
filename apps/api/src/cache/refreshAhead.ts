/**
 * Refresh ahead: a read the cache held is loaded again after its product changes, so the next
 * request for it is a hit, not a miss that waits on the store. Refreshes wait in a queue (a key once,
 * however often its product changed) and run one at a time: they use what the store has to spare and
 * never crowd out the requests, votes included. A refresh that fails is logged and not retried: the
 * next request loads the read itself.
 */
import { Cause, Effect, type Scope } from "effect"
import type { ProductId } from "@productdir/domain"

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
    let draining = false
    let running: { readonly key: string; readonly productId: ProductId } | undefined
    let count = 0

    const drain: Effect.Effect<void> = Effect.suspend(() => {
      const next = queued.entries().next()
      if (next.done === true) {
        draining = false
        return Effect.void
      }
      const [key, productId] = next.value
      queued.delete(key)
      count++
      running = { key, productId }
      return load(key, productId).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.void
            : Effect.logWarning(`read cache: refreshing ${key} failed; the next request for it loads it`, Cause.squash(cause))
        ),
        Effect.andThen(
          Effect.suspend(() => {
            running = undefined
            return drain
          })
        )
      )
    })

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
