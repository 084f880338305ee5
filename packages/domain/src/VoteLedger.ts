/** The vote ledger: votes are the truth, the product counters a cache of them. */
import { Context, type Effect, type Stream } from "effect"
import type { ProductNotFound, ProductRemoved, StoreError } from "./errors.ts"
import type { CounterSnapshot, Repair } from "./Reconciliation.ts"
import type { CastResult, CastVote } from "./Vote.ts"

export class VoteLedger extends Context.Service<VoteLedger, {
  /**
   * Records one voter's vote and moves the counters in one atomic step: N
   * concurrent votes are N counted. One live vote per (product, voter).
   */
  readonly cast: (vote: CastVote) => Effect.Effect<CastResult, ProductNotFound | ProductRemoved | StoreError>
  /** Stored counters, seed counts and ledger tallies of every product, in batches (reconciliation). */
  readonly snapshots: (batchSize: number) => Stream.Stream<ReadonlyArray<CounterSnapshot>, StoreError>
  /**
   * Repairs drifted products to seed + ledger. Each snapshot's expected counters are written only
   * if the product still has the snapshot's counters and seed (compare-and-set); a product that
   * moved since (a vote, an import) is recounted under its row lock instead, so a concurrent vote
   * is never overwritten by a stale count. One call is one transaction.
   */
  readonly repair: (drifted: ReadonlyArray<CounterSnapshot>) => Effect.Effect<ReadonlyArray<Repair>, StoreError>
}>()("@productdir/domain/VoteLedger") {}
