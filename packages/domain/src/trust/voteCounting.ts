/**
 * How votes count (docs/api.md, "How votes count"; docs/threat-model.md). Identity stops one cheater;
 * a crowd is the next threat, so a vote that is recorded does not always count at once:
 *
 * - `counted`: it moves the product's counters;
 * - `held`: recorded, not counted yet. The product was getting far more votes than its own history
 *   predicts (a burst), and the voter had no standing, or had it and turned on what the product's
 *   evidence had settled (a reversal); the integrity pass looks at the burst and counts the votes
 *   that pass;
 * - `discounted`: recorded, found by the integrity pass to be part of a coordinated group (voters
 *   that vote the same products in the same windows); an operator can clear the group, and its
 *   votes count again.
 *
 * Counters = seed + counted votes of identities in good standing (VoteLedger.ts states the rule).
 * The burst guard's arithmetic is here, once: the SQL store's cast routine mirrors it, the memory
 * store applies it, and the store contract holds both to it.
 */
import { Schema } from "effect"
import { judgedShare, MILLI, PRIOR, VOTE_WEIGHTS, weightedOf } from "./judgement.ts"
import { Count, type Tally } from "./trust.ts"

export const VoteCounting = Schema.Literals(["counted", "held", "discounted"]).annotate({
  identifier: "VoteCounting",
  description:
    "How the vote counts now: `counted`, it moved the counters; `held`, recorded and waiting for the integrity pass (the product was getting far more votes than usual, and the voter has no standing yet: an agent registered days ago with votes that counted; or the voter has standing and turned, in such a burst, against what the product's votes had settled); `discounted`, recorded but not counted, as part of a coordinated group: voters in lockstep across products, or addresses that vote one product and nothing else in numbers its agents and its other visitors do not back (an operator can clear it)"
})
export type VoteCounting = typeof VoteCounting.Type

// ---- the burst guard ----------------------------------------------------------

/** Time constants of a product's two decayed vote counts: the last hour's, and the last week's. */
export const FAST_SECONDS = 3_600
export const SLOW_SECONDS = 604_800

/**
 * When new votes without standing wait: once the last hour's votes exceed `floor` plus `factor`
 * times the hourly rate the product's last week predicts. The floor keeps a handful of votes on a
 * quiet product from being a burst.
 */
export interface BurstGuard {
  readonly floor: number
  readonly factor: number
  /** When voters with standing wait too: see `isReversal`. */
  readonly reversal: ReversalGuard
}

/**
 * A reversal: a voter with standing voting against what a product's evidence has settled (at least `votes`
 * votes' worth, each vote by its weight and a seed count as one, with `share` or more of it the other way). By
 * weight, not by count: a flood of fresh agents' votes, a fortieth each, settles nothing. Standing is what a
 * week of patience buys, and a few dozen patient identities turning on one product within minutes look, in its
 * votes, like its users finding a fault. So past a lower floor (`floor` plus the factor times the expected hour)
 * a reversal waits too, and the integrity pass counts it once later votes of others agree (release.ts). Voting
 * with the product's votes, or on a product without settled votes, a voter with standing counts at once.
 */
export interface ReversalGuard {
  readonly floor: number
  readonly votes: number
  readonly share: number
}

export const DEFAULT_BURST_GUARD: BurstGuard = { floor: 10, factor: 8, reversal: { floor: 5, votes: 20, share: 0.75 } }

/** A product's decayed vote counts (votes with τ of an hour, and of a week) and when they were last moved. */
export interface VoteRates {
  readonly fast: number
  readonly slow: number
  /** Epoch milliseconds; 0 for a product no vote has moved yet. */
  readonly at: number
}

export const noRates: VoteRates = { fast: 0, slow: 0, at: 0 }

/** The rates decayed to `now` (epoch milliseconds). */
export const decayedRates = (rates: VoteRates, now: number): VoteRates => {
  const seconds = Math.max(0, now - rates.at) / 1000
  return { fast: rates.fast * Math.exp(-seconds / FAST_SECONDS), slow: rates.slow * Math.exp(-seconds / SLOW_SECONDS), at: now }
}

/** Whether one more vote makes a burst, at rates already decayed to the vote's time. */
export const isBurst = (decayed: VoteRates, guard: BurstGuard): boolean =>
  decayed.fast + 1 > guard.floor + (guard.factor * decayed.slow * FAST_SECONDS) / SLOW_SECONDS

/** Whether a vote in `direction` goes against what a product's weighed evidence (`weighted`, thousandths of a vote) has settled. */
export const isReversal = (weighted: Tally, direction: "up" | "down", guard: BurstGuard): boolean => {
  const total = weighted.up + weighted.down
  const against = direction === "down" ? weighted.up : weighted.down
  return total >= guard.reversal.votes * MILLI && against >= guard.reversal.share * total
}

/** Whether one more reversal makes a burst of them, at rates already decayed to the vote's time (`isBurst`, a lower floor). */
export const isReversalBurst = (decayed: VoteRates, guard: BurstGuard): boolean =>
  decayed.fast + 1 > guard.reversal.floor + (guard.factor * decayed.slow * FAST_SECONDS) / SLOW_SECONDS

/**
 * Whether a new vote is held, at rates decayed to its time: a voter without standing in a burst, or a
 * voter with standing reversing the product's settled votes in a burst of its own (`isReversal`).
 */
export const holdsVote = (
  decayed: VoteRates,
  guard: BurstGuard,
  voter: { readonly standing: boolean; readonly reversal: boolean }
): boolean => (voter.standing ? voter.reversal && isReversalBurst(decayed, guard) : isBurst(decayed, guard))

/** The rates after a new vote: every vote is in the last hour's count; a held one does not teach the week's. */
export const ratesAfterVote = (decayed: VoteRates, held: boolean): VoteRates => ({
  fast: decayed.fast + 1,
  slow: decayed.slow + (held ? 0 : 1),
  at: decayed.at
})

/**
 * The rates after the integrity pass counts held votes cast at `castAt` (epoch milliseconds), at `now`: they
 * teach the week's rate as if they had counted when cast. Without it a product that starts cold (a new
 * directory, an imported catalog, a product gone viral) stays above its own bar for days, its votes held
 * and judged when they need not be: only counted votes teach, and past the floor few count.
 */
export const ratesAfterRelease = (rates: VoteRates, castAt: ReadonlyArray<number>, now: number): VoteRates => {
  const decayed = decayedRates(rates, Math.max(now, rates.at))
  let taught = 0
  for (const at of castAt) taught += Math.exp(-Math.max(0, decayed.at - at) / 1000 / SLOW_SECONDS)
  return { ...decayed, slow: decayed.slow + taught }
}

// ---- how a product's trust was formed ---------------------------------------------

const TallySchema = Schema.Struct({ up: Count, down: Count })

/** Why held votes are held (held_because). */
export const HeldReason = Schema.Literals(["waiting", "anonymous", "reversal", "group"]).annotate({
  description:
    "`waiting`: an agent's vote cast during a burst, which the next integrity pass counts unless a group explains it; `anonymous`: a vote of a network address in a burst, which counts only when agents from many networks or established voters carried the burst (a flood of addresses looks like nothing else); `reversal`: a vote of an agent with standing against what the product's votes had settled, cast in a burst of such votes, which counts once later votes of others agree; `group`: a vote of a flood the pass found, which counts only if an operator clears its group"
})
export type HeldReason = typeof HeldReason.Type

/**
 * Why a held vote is held, from what the ledger keeps of it: a flood's votes carry their group; an agent's vote
 * that weighs what standing weighs was held as a reversal (nothing else holds a voter with standing).
 */
export const heldReason = (grouped: boolean, agent: boolean, weight: number): HeldReason =>
  grouped ? "group" : !agent ? "anonymous" : weight === VOTE_WEIGHTS.standing ? "reversal" : "waiting"

const HELD_REASONS: ReadonlyArray<HeldReason> = ["waiting", "anonymous", "reversal", "group"]

const HELD_EXPLANATIONS: Record<HeldReason, string> = {
  waiting: "agents' votes cast during a burst: the next integrity pass counts them unless a group explains them",
  anonymous:
    "network addresses' votes in a burst: they count when agents from many networks or established voters carried it, and stay held otherwise (a flood of addresses looks like nothing else)",
  reversal:
    "votes of agents with standing against what the product's votes had settled, cast in a burst of such votes: they count once later votes of others agree",
  group: "votes of a flood the integrity pass found: they count only if an operator clears its group"
}

/** Counted votes of one weight: how many up and down, and that weight in votes (1, 0.05, 0.02: judgement.ts). */
const WeightClass = Schema.Struct({
  weight: Schema.Finite.annotate({ description: "What each of these votes weighs, in votes" }),
  up: Count,
  down: Count
})

export const TrustFormation = Schema.Struct({
  seed: TallySchema.annotate({ description: "Counts the catalog came with (imported): each weighs one vote" }),
  agents: TallySchema.annotate({ description: "Counted votes of agents that proved who they are (an API key, or a signature)" }),
  addresses: TallySchema.annotate({ description: "Counted votes of clients known only by their network address" }),
  weights: Schema.Array(WeightClass).annotate({
    description: `The counted votes by what each weighs (its voter's standing when it voted: an agent with standing ${VOTE_WEIGHTS.standing / MILLI}, an agent without ${VOTE_WEIGHTS.agent / MILLI}, an address ${VOTE_WEIGHTS.address / MILLI}), heaviest first`
  }),
  prior: Schema.Struct({ votes: Count, share: Schema.Finite }).annotate({
    description: "The prior the evidence is pulled toward: this many votes at this up share"
  }),
  judged_share: Schema.Finite.annotate({
    description:
      "(seed up + Σ weight × up + prior votes × prior share) / (seed + Σ weight × votes + prior votes): trust_ratio before rounding"
  }),
  held: Count.annotate({ description: "Votes recorded during a burst and waiting for the integrity pass: not counted yet" }),
  held_because: Schema.Array(
    Schema.Struct({
      reason: HeldReason,
      votes: Count,
      explanation: Schema.String
    })
  ).annotate({ description: "Why the held votes are held, by reason (none listed when none is held)" }),
  discounted: Count.annotate({ description: "Votes not counted because the integrity pass found them part of a coordinated group" })
}).annotate({
  identifier: "TrustFormation",
  description:
    "How the trust was formed: the counts (seed + counted votes of agents + counted votes of addresses), and the judgement of them: each counted vote weighed by its voter's standing when it voted, a seed count as one vote, and the prior they are pulled toward. Redo the sum: trust_ratio = judged_share. Held votes may count after the integrity pass; discounted ones count again only if an operator clears their group."
})
export type TrustFormation = typeof TrustFormation.Type

/** What a store counts of a product's ledger, for its formation. */
export interface LedgerFormation {
  readonly agents: Tally
  readonly addresses: Tally
  /** Counted votes by their weight (thousandths of a vote), heaviest first. */
  readonly byWeight: ReadonlyArray<{ readonly weight: number; readonly up: number; readonly down: number }>
  readonly held: number
  /** The held votes by why they are held. */
  readonly heldBy: Readonly<Record<HeldReason, number>>
  readonly discounted: number
}

export const toTrustFormation = (seed: Tally, ledger: LedgerFormation): TrustFormation => {
  const counted = ledger.byWeight.reduce((sum, w) => ({ up: sum.up + w.weight * w.up, down: sum.down + w.weight * w.down }), {
    up: 0,
    down: 0
  })
  return {
    seed: { up: seed.up, down: seed.down },
    agents: { up: ledger.agents.up, down: ledger.agents.down },
    addresses: { up: ledger.addresses.up, down: ledger.addresses.down },
    weights: [...ledger.byWeight]
      .filter((w) => w.up + w.down > 0)
      .sort((a, b) => b.weight - a.weight)
      .map((w) => ({ weight: w.weight / MILLI, up: w.up, down: w.down })),
    prior: { votes: PRIOR.votes, share: PRIOR.share },
    judged_share: judgedShare(weightedOf(seed, counted)),
    held: ledger.held,
    held_because: HELD_REASONS.filter((reason) => ledger.heldBy[reason] > 0).map((reason) => ({
      reason,
      votes: ledger.heldBy[reason],
      explanation: HELD_EXPLANATIONS[reason]
    })),
    discounted: ledger.discounted
  }
}
