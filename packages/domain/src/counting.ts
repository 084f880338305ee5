/**
 * How votes count (docs/api.md, "How votes count"; docs/threat-model.md). Identity stops one cheater;
 * a crowd is the next threat, so a vote that is recorded does not always count at once:
 *
 * - `counted`: it moves the product's counters;
 * - `held`: recorded, not counted yet. The product was getting far more votes than its own history
 *   predicts (a burst), and the voter had no standing; the integrity pass looks at the burst and
 *   counts the votes that pass;
 * - `discounted`: recorded, found by the integrity pass to be part of a coordinated group (voters
 *   that vote the same products in the same windows); an operator can clear the group, and its
 *   votes count again.
 *
 * Counters = seed + counted votes of identities in good standing (VoteLedger.ts states the rule).
 * The burst guard's arithmetic is here, once: the SQL store's cast routine mirrors it, the memory
 * store applies it, and the store contract holds both to it.
 */
import { Schema } from "effect"
import { Count, type Tally } from "./trust.ts"

export const VoteCounting = Schema.Literals(["counted", "held", "discounted"]).annotate({
  identifier: "VoteCounting",
  description:
    "How the vote counts now: `counted`, it moved the counters; `held`, recorded and waiting for the integrity pass (the product was getting far more votes than usual, and the voter has no standing yet: an agent registered days ago with votes that counted); `discounted`, recorded but not counted, as part of a coordinated group: voters in lockstep across products, or addresses that vote one product and nothing else in numbers its agents and its other visitors do not back (an operator can clear it)"
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
}

export const DEFAULT_BURST_GUARD: BurstGuard = { floor: 10, factor: 8 }

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

export const TrustFormation = Schema.Struct({
  seed: TallySchema.annotate({ description: "Counts the catalog came with (imported)" }),
  agents: TallySchema.annotate({ description: "Counted votes of agents that proved who they are (an API key, or a signature)" }),
  addresses: TallySchema.annotate({ description: "Counted votes of clients known only by their network address" }),
  held: Count.annotate({ description: "Votes recorded during a burst and waiting for the integrity pass: not counted yet" }),
  discounted: Count.annotate({ description: "Votes not counted because the integrity pass found them part of a coordinated group" })
}).annotate({
  identifier: "TrustFormation",
  description:
    "How the trust counters were formed: seed + counted votes of agents + counted votes of addresses. Weigh them yourself: a vote of an agent is harder to fake than a vote of an address (an address is cheap to change). Held votes may count after the integrity pass; discounted ones count again only if an operator clears their group."
})
export type TrustFormation = typeof TrustFormation.Type

/** What a store counts of a product's ledger, for its formation. */
export interface LedgerFormation {
  readonly agents: Tally
  readonly addresses: Tally
  readonly held: number
  readonly discounted: number
}

export const toTrustFormation = (seed: Tally, ledger: LedgerFormation): TrustFormation => ({
  seed: { up: seed.up, down: seed.down },
  agents: { up: ledger.agents.up, down: ledger.agents.down },
  addresses: { up: ledger.addresses.up, down: ledger.addresses.down },
  held: ledger.held,
  discounted: ledger.discounted
})
