/**
 * Trust logic (docs/api.md, "Trust"): the counters are a cache of the votes; every derived value is computed here
 * and in judgement.ts and nowhere else, so the API, the importer and the reconciliation job agree to the last digit.
 *
 * `trust_up`, `trust_down` and `evaluation_count` are counts: seed counts plus counted votes. `trust_score` and
 * `trust_ratio` are the directory's judgement of them (judgement.ts): each counted vote weighed by its voter's
 * standing when it voted, and thin evidence pulled toward a prior.
 */
import { Schema } from "effect"
import { Evidence, evidenceOf, judgedRatio, judgedScore, judgementWords, PRIOR, type Weighted } from "./judgement.ts"

export const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const Trust = Schema.Struct({
  trust_score: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })).annotate({
    description: `0..100, the directory's judgement: 100 × the judged up share (each counted vote weighed by its voter's standing, a seed count as one vote, pulled toward ${PRIOR.share * 100} by a prior worth ${PRIOR.votes} votes; docs/api.md, "Trust"). A product nobody voted on is at ${PRIOR.share * 100}: no evidence, not a judgement`
  }),
  trust_up: Count.annotate({ description: "Positive votes (seed count + counted votes)" }),
  trust_down: Count.annotate({ description: "Negative votes (seed count + counted votes)" }),
  trust_ratio: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })).annotate({
    description: `The judged up share, 4 decimals: (weighted up + ${PRIOR.votes * PRIOR.share}) / (weighted votes + ${PRIOR.votes})`
  }),
  evaluation_count: Count.annotate({ description: "trust_up + trust_down" })
}).annotate({ identifier: "Trust", description: "Community trust counters and the directory's judgement of them" })
export type Trust = typeof Trust.Type

/** Positive and negative vote counts; with weights (thousandths of a vote), a product's weighted evidence. */
export interface Tally {
  readonly up: number
  readonly down: number
}

export const emptyTally: Tally = { up: 0, down: 0 }

export const addTally = (a: Tally, b: Tally): Tally => ({ up: a.up + b.up, down: a.down + b.down })

export const tallyEquals = (a: Tally, b: Tally): boolean => a.up === b.up && a.down === b.down

/** The score a product is listed by (`sort=trust`): its judged score (judgement.ts), from its weighted evidence. */
export const trustScore = (weighted: Weighted): number => judgedScore(weighted)

/** The spec's trust object: the counts, and the judgement of the weighted evidence. */
export const toTrust = (counters: Tally, weighted: Weighted): Trust => ({
  trust_score: judgedScore(weighted),
  trust_up: counters.up,
  trust_down: counters.down,
  trust_ratio: judgedRatio(weighted),
  evaluation_count: counters.up + counters.down
})

/**
 * The trust object where agents read it (cards, views, search results, votes' answers): the spec's fields, how much
 * evidence they rest on, and a line to quote, which says "no votes yet" where there is none.
 */
export const TrustSummary = Schema.Struct({
  ...Trust.fields,
  evidence: Evidence,
  summary: Schema.String.annotate({
    description: 'The judgement in words, to quote: "no votes yet" where there is no evidence',
    examples: ["86/100 from 120 votes, 91% up (97.3 votes' worth by standing: some evidence)", "no votes yet"]
  })
}).annotate({ identifier: "TrustSummary" })
export type TrustSummary = typeof TrustSummary.Type

export const toTrustSummary = (counters: Tally, weighted: Weighted): TrustSummary => ({
  ...toTrust(counters, weighted),
  evidence: evidenceOf(weighted),
  summary: judgementWords(weighted, counters)
})
