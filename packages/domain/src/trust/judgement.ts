/**
 * The directory's judgement of a product (docs/api.md, "Trust"): every counted vote weighed by its voter's standing
 * when it voted, and a product's evidence pulled toward a prior when it is thin, so that the score costs what it
 * can buy: a handful of fresh identities cannot move it far, whatever the integrity pass sees. The counters stay
 * counts (`trust_up`, `trust_down`, `evaluation_count`: trust.ts); `trust_score` and `trust_ratio` are this.
 *
 * - A vote weighs what its voter's standing was when it was cast (VOTE_WEIGHTS): an agent the integrity pass gave
 *   standing (registered days ago, with votes that counted, in no voter group) a whole vote; an agent without it a
 *   fortieth; a client known only by its network address a hundredth. A seed count (the catalog's own) weighs one.
 *   Weights are whole thousandths ("milli-votes"), so that every store sums them exactly, as the counters are.
 * - The judged share is IMDb's weighted rating (WR = v/(v+m)·R + m/(v+m)·C) over the weighted evidence: a prior of
 *   PRIOR.votes votes at PRIOR.share is added to what the product has. A product nobody voted on is judged at the
 *   prior, and said to have no votes yet; one vote of full weight moves it a tenth of the way at most.
 *
 * One pure function of the weighted sums: monotone in each vote (an up vote never lowers the share, a down vote
 * never raises it), bounded in what one voter can move (one vote a product, of weight 1 at most), and free of the
 * clock: a vote's weight was fixed when it was cast.
 */
import { Schema } from "effect"
import type { Voter } from "./Voter.ts"

/** Weights are counted in thousandths of a vote. */
export const MILLI = 1_000

/** A counted vote's weight in thousandths, by its voter's standing when it voted. */
export const VOTE_WEIGHTS = {
  /** An agent the integrity pass gave standing: a whole vote. */
  standing: 1_000,
  /** An agent without standing yet (new, or whose votes have not counted long enough): a fortieth. */
  agent: 25,
  /** A client proven by nothing but its network address: a hundredth. */
  address: 10
} as const

export type VoterClass = keyof typeof VOTE_WEIGHTS

/** What a voter weighs: an agent by its standing (given by the integrity pass), anyone else as an address. */
export const voterClassOf = (voter: Voter, standing: boolean): VoterClass =>
  voter._tag === "Agent" ? (standing ? "standing" : "agent") : "address"

/** The weight of a vote cast by a voter of `voterClass`, in thousandths. */
export const voteWeight = (voterClass: VoterClass): number => VOTE_WEIGHTS[voterClass]

/** A seed count's weight: the catalog's own counts weigh one each. */
export const SEED_WEIGHT = MILLI

/** What a product with no evidence is judged at (`share`), and how many whole votes of evidence that prior is worth. */
export const PRIOR = { votes: 10, share: 0.5 } as const

/** Up and down: counts (trust.ts's Tally), or their weights. Its own here: trust.ts is made from this module. */
interface UpDown {
  readonly up: number
  readonly down: number
}

/** A product's weighted evidence: seed counts and counted votes, each by its weight, in thousandths. */
export type Weighted = UpDown

/** Half-up rounding written the same way in SQL (floor(x + 0.5)), so both stores agree. */
const roundHalfUp = (x: number): number => Math.floor(x + 0.5)

/** The judged up share: (U + m·C) / (U + D + m), every term in thousandths of a vote. */
export const judgedShare = ({ up, down }: Weighted): number => (up + PRIOR.votes * PRIOR.share * MILLI) / (up + down + PRIOR.votes * MILLI)

/** `trust_score`: the judged share in percent, rounded half up. */
export const judgedScore = (weighted: Weighted): number => roundHalfUp(100 * judgedShare(weighted))

/** `trust_ratio`: the judged share, 4 decimals. */
export const judgedRatio = (weighted: Weighted): number => roundHalfUp(judgedShare(weighted) * 10_000) / 10_000

/** The weighted evidence of seed counts and counted votes (`counted`: their weights summed, thousandths). */
export const weightedOf = (seed: UpDown, counted: Weighted): Weighted => ({
  up: seed.up * SEED_WEIGHT + counted.up,
  down: seed.down * SEED_WEIGHT + counted.down
})

/** How much evidence a judgement rests on: none, thin (under ten votes' worth by weight), some (under 100), or strong. */
export const Evidence = Schema.Literals(["none", "thin", "some", "strong"]).annotate({
  description:
    "How much the score rests on: `none` (no votes yet: the score is the prior, not a judgement), `thin` (under 10 votes' worth), `some` (under 100), `strong`"
})
export type Evidence = typeof Evidence.Type

export const evidenceOf = ({ up, down }: Weighted): Evidence => {
  const votes = (up + down) / MILLI
  return votes === 0 ? "none" : votes < 10 ? "thin" : votes < 100 ? "some" : "strong"
}

/** The judgement in words, as agents are told it: "no votes yet" where there is no evidence. */
export const judgementWords = (weighted: Weighted, counts: UpDown): string => {
  const evidence = evidenceOf(weighted)
  if (evidence === "none") return "no votes yet"
  const votes = counts.up + counts.down
  const worth = (weighted.up + weighted.down) / MILLI
  const up = votes === 0 ? "" : `, ${Math.round((100 * counts.up) / votes)}% up`
  return `${judgedScore(weighted)}/100 from ${votes} vote${votes === 1 ? "" : "s"}${up} (${worth.toFixed(worth < 10 ? 2 : 1)} votes' worth by standing: ${evidence} evidence)`
}
