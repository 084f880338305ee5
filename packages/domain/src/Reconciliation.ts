/**
 * Reconciliation (DESIGN §12): expected counters are seed counts plus the
 * live votes of the ledger; anything else stored is drift.
 */
import type { ProductId } from "./ids.ts"
import { addTally, type Tally, tallyEquals } from "./trust.ts"

export interface CounterSnapshot {
  readonly id: ProductId
  readonly seed: Tally
  readonly stored: Tally
  readonly ledger: Tally
}

export interface Repair {
  readonly id: ProductId
  readonly before: Tally
  readonly after: Tally
}

export const expectedCounters = (snapshot: Pick<CounterSnapshot, "seed" | "ledger">): Tally =>
  addTally(snapshot.seed, snapshot.ledger)

export const hasDrifted = (snapshot: CounterSnapshot): boolean => !tallyEquals(snapshot.stored, expectedCounters(snapshot))
