/**
 * Batches are written a few at a time (CatalogImport.ts), and an input may repeat an id: the later record
 * must win. So a batch that shares a product id with an earlier batch still being written waits for
 * that one to commit first; batches with no id in common go side by side.
 */
import { Deferred, Effect } from "effect"

export interface Ordered<A> {
  readonly batch: A
  /** Runs `write` once every earlier batch it shares an id with has been written. */
  readonly write: <B, E, R>(write: Effect.Effect<B, E, R>) => Effect.Effect<B, E, R>
}

interface Pending {
  readonly ids: ReadonlySet<string>
  readonly done: Deferred.Deferred<void>
}

/**
 * Orders batches by the ids they share. `order` must see the batches in input order, one at a time
 * (a sequential stream stage); the writes it returns may then run concurrently.
 */
export const makeBatchOrder = <A>(idsOf: (batch: A) => Iterable<string>) => {
  let pending: Array<Pending> = []
  return (batch: A): Effect.Effect<Ordered<A>> =>
    Effect.gen(function* () {
      const ids = new Set(idsOf(batch))
      pending = pending.filter((p) => !Deferred.isDoneUnsafe(p.done))
      const before = pending.filter((p) => [...ids].some((id) => p.ids.has(id))).map((p) => p.done)
      const done = yield* Deferred.make<void>()
      pending.push({ ids, done })
      return {
        batch,
        write: (write) =>
          Effect.forEach(before, Deferred.await, { discard: true }).pipe(
            Effect.andThen(write),
            Effect.ensuring(Deferred.succeed(done, undefined))
          )
      }
    })
}
