/**
 * Edits a store behind its services' backs, as an operator with SQL could:
 * how the contract suite injects drift for the reconciliation behaviours.
 */
import { Context, Effect, Layer } from "effect"
import { MemoryStore, type ProductId, type Tally, type VoteDirection } from "@productdir/domain"

export class Backdoor extends Context.Service<Backdoor, {
  readonly setCounters: (id: ProductId, counters: Tally) => Effect.Effect<void, unknown>
  readonly setSeed: (id: ProductId, seed: Tally) => Effect.Effect<void, unknown>
  readonly insertVote: (id: ProductId, voter: string, direction: VoteDirection) => Effect.Effect<void, unknown>
  readonly deleteVote: (id: ProductId, voter: string) => Effect.Effect<void, unknown>
}>()("@productdir/testkit/Backdoor") {}

/** The backdoor of the in-memory store, through its `Direct` state. */
export const layerMemory = Layer.effect(Backdoor, Effect.gen(function*() {
  const state = yield* MemoryStore.Direct
  const update = (id: ProductId, f: (p: NonNullable<ReturnType<typeof state.products.get>>) => object) =>
    Effect.sync(() => {
      const product = state.products.get(id)
      if (product) state.products.set(id, { ...product, ...f(product) })
    })
  return Backdoor.of({
    setCounters: (id, counters) => update(id, () => ({ counters })),
    setSeed: (id, seed) => update(id, () => ({ seed })),
    insertVote: (id, voter, direction) =>
      Effect.sync(() => {
        const ballots = state.votes.get(id) ?? new Map()
        state.votes.set(id, ballots)
        ballots.set(voter, { direction, createdAt: new Date(), updatedAt: new Date() })
      }),
    deleteVote: (id, voter) => Effect.sync(() => void state.votes.get(id)?.delete(voter))
  })
}))
