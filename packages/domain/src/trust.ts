/**
 * Trust logic (docs/api.md, "Trust"): the counters are a cache of the votes; every
 * derived value is computed here and nowhere else, so the API, the importer
 * and the reconciliation job agree to the last digit.
 */
import { Schema } from "effect"

/** z for a two-sided 95 % confidence interval. Named once: SQL mirrors it (see packages/postgres). */
export const WILSON_Z = 1.959964

export const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const Trust = Schema.Struct({
  trust_score: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })).annotate({
    description: "0..100: 100 × the lower bound of the 95 % Wilson score interval of the up-vote share"
  }),
  trust_up: Count.annotate({ description: "Positive votes (seed count + live votes)" }),
  trust_down: Count.annotate({ description: "Negative votes (seed count + live votes)" }),
  trust_ratio: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })).annotate({
    description: "trust_up / evaluation_count, 4 decimals; 0 without votes"
  }),
  evaluation_count: Count.annotate({ description: "trust_up + trust_down" })
}).annotate({ identifier: "Trust", description: "Community trust counters" })
export type Trust = typeof Trust.Type

/** Positive and negative vote counts: the only inputs of the trust logic. */
export interface Tally {
  readonly up: number
  readonly down: number
}

export const emptyTally: Tally = { up: 0, down: 0 }

export const addTally = (a: Tally, b: Tally): Tally => ({ up: a.up + b.up, down: a.down + b.down })

export const tallyEquals = (a: Tally, b: Tally): boolean => a.up === b.up && a.down === b.down

/**
 * Lower bound of the Wilson score interval, in the form that stays exact for
 * large counts: (u + z²/2 − z·√(u·d/n + z²/4)) / (n + z²).
 */
export const wilsonLowerBound = ({ up, down }: Tally): number => {
  const n = up + down
  if (n === 0) return 0
  const z2 = WILSON_Z * WILSON_Z
  const bound = (up + z2 / 2 - WILSON_Z * Math.sqrt((up * down) / n + z2 / 4)) / (n + z2)
  return Math.min(1, Math.max(0, bound))
}

/** Half-up rounding written the same way in SQL (floor(x + 0.5)), so both stores agree. */
const roundHalfUp = (x: number): number => Math.floor(x + 0.5)

export const trustScore = (tally: Tally): number => roundHalfUp(100 * wilsonLowerBound(tally))

export const trustRatio = ({ up, down }: Tally): number => {
  const n = up + down
  return n === 0 ? 0 : roundHalfUp((up / n) * 10_000) / 10_000
}

export const toTrust = (tally: Tally): Trust => ({
  trust_score: trustScore(tally),
  trust_up: tally.up,
  trust_down: tally.down,
  trust_ratio: trustRatio(tally),
  evaluation_count: tally.up + tally.down
})
