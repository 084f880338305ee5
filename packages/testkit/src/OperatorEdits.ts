/**
 * Edits a store behind its services' backs, as an operator with SQL could: how
 * the contract suite injects drift for the reconciliation behaviours. Each store
 * adapter implements it in its own tests.
 */
import { Context, type Effect } from "effect"
import type { ProductId, Tally, VoteDirection } from "@productdir/domain"

export class OperatorEdits extends Context.Service<
  OperatorEdits,
  {
    readonly setCounters: (id: ProductId, counters: Tally) => Effect.Effect<void, unknown>
    readonly setSeed: (id: ProductId, seed: Tally) => Effect.Effect<void, unknown>
    readonly insertVote: (id: ProductId, voter: string, direction: VoteDirection) => Effect.Effect<void, unknown>
    readonly deleteVote: (id: ProductId, voter: string) => Effect.Effect<void, unknown>
  }
>()("@productdir/testkit/OperatorEdits") {}
