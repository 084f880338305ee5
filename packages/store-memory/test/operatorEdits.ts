import { Effect, Layer } from "effect"
import { type Product, type ProductId, VOTE_WEIGHTS } from "@productdir/domain"
import { MemoryState } from "@productdir/store-memory/testing"
import { OperatorEdits } from "@productdir/testkit"

/** Drift behind the services' backs, through the shared state. */
export const layerMemoryOperatorEdits = Layer.effect(
  OperatorEdits,
  Effect.gen(function* () {
    const state = yield* MemoryState
    const update = (id: ProductId, f: (p: Product) => Partial<Product>) =>
      Effect.sync(() => {
        const product = state.products.get(id)
        if (product) state.products.set(id, { ...product, ...f(product) })
      })
    return OperatorEdits.of({
      setCounters: (id, counters) => update(id, () => ({ counters })),
      setSeed: (id, seed) => update(id, () => ({ seed })),
      insertVote: (id, voter, direction) =>
        Effect.sync(() => {
          const ballots = state.votes.get(id) ?? new Map()
          state.votes.set(id, ballots)
          ballots.set(voter, {
            direction,
            createdAt: new Date(0),
            updatedAt: new Date(0),
            revokedAt: null,
            counting: "counted",
            network: null,
            groupId: null,
            weight: VOTE_WEIGHTS.address
          })
        }),
      deleteVote: (id, voter) => Effect.sync(() => void state.votes.get(id)?.delete(voter))
    })
  })
)
