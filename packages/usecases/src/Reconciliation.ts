/**
 * The reconciliation pass (docs/operations.md, "Reconciling vote counters"): every product's stored counters
 * against its seed and ledger (the domain's rule, VoteLedger.ts), drift
 * reported, and repaired when asked.
 */
import { Effect, Stream } from "effect"
import { type CounterSnapshot, expectedCounters, hasDrifted, type ProductId, type Tally, VoteLedger } from "@productdir/domain"

export interface Drift {
  readonly id: ProductId
  readonly stored: Tally
  readonly expected: Tally
}

export interface ReconcileSummary {
  checked: number
  drifted: number
  repaired: number
  votesScanned: number
  /** The first drifts found (at most MAX_LISTED_DRIFTS); the counts go on past that. */
  readonly drifts: Array<Drift>
}

export const MAX_LISTED_DRIFTS = 10_000

export interface ReconcileOptions {
  /** false: report only (check); true: repair what drifted. */
  readonly repair: boolean
  readonly batchSize: number
  /** Called after every batch. */
  readonly onBatch?: (summary: ReconcileSummary) => void
}

/**
 * One reconciliation pass over every product, batch by batch (memory stays
 * flat). Drifted products are repaired in batches of up to `batchSize`, so a
 * catalog with a little drift costs a few repair transactions, not one per
 * batch read. Each repair finishes even when the run is interrupted: a stop
 * ends the run between batches, never inside one.
 */
export const reconcile = Effect.fn("reconcile")(function* (options: ReconcileOptions) {
  const ledger = yield* VoteLedger
  const summary: ReconcileSummary = { checked: 0, drifted: 0, repaired: 0, votesScanned: 0, drifts: [] }
  let pending: Array<CounterSnapshot> = []
  // Compare-and-set, else a recount under row locks: a vote since the snapshot is counted, not lost.
  const repairPending = Effect.suspend(() => {
    const drifted = pending
    pending = []
    return drifted.length === 0
      ? Effect.void
      : Effect.map(ledger.repair(drifted), (repairs) => {
          summary.repaired += repairs.length
        })
  }).pipe(Effect.uninterruptible)

  yield* ledger.snapshots(options.batchSize).pipe(
    Stream.runForEach((batch) =>
      Effect.gen(function* () {
        summary.checked += batch.length
        for (const s of batch) summary.votesScanned += s.ledger.up + s.ledger.down
        for (const s of batch.filter(hasDrifted)) {
          summary.drifted++
          if (summary.drifts.length < MAX_LISTED_DRIFTS) summary.drifts.push({ id: s.id, stored: s.stored, expected: expectedCounters(s) })
          if (options.repair) pending.push(s)
        }
        if (pending.length >= options.batchSize) yield* repairPending
        options.onBatch?.(summary)
      })
    )
  )
  yield* repairPending
  options.onBatch?.(summary)
  return summary
})
