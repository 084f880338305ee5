/**
 * The vote ledger: votes are the truth, the product counters a cache of them
 * (docs/api.md, "Trust"). The rule that ties the two is stated here once:
 *
 *   a product's counters are its seed counts plus the votes of its ledger that
 *   count, and a vote counts while the identity that cast it is in good standing.
 *
 * A revoked agent's votes stay in the ledger, marked with the revocation, and
 * count for nothing until the agent is restored; so do held and discounted votes
 * (voteCounting.ts) until the integrity pass or an operator counts them. Anything else stored is drift,
 * which the reconciliation job finds and repairs. The SQL store applies the
 * same rule through one view (`counted_votes`, docs/database.md).
 */
import { Context, Effect, type Stream } from "effect"
import type { AgentRevoked, ProductNotFound, ProductRemoved, StoreError } from "../support/errors.ts"
import type { ProductId } from "../record/ids.ts"
import type { Decision, Limit, RateLimits } from "./RateLimits.ts"
import { weightedOf } from "../trust/judgement.ts"
import { addTally, type Tally, tallyEquals } from "../trust/trust.ts"
import type { LedgerFormation, VoteCounting } from "../trust/voteCounting.ts"
import type { CastResult, CastVote, VoteDirection } from "../trust/Vote.ts"

/**
 * A vote as the ledger keeps it: `revokedAt` marks the vote of an agent that was revoked; `counting`
 * says whether it counts, waits (held) or was found part of a coordinated group (voteCounting.ts).
 */
export interface LedgerEntry {
  readonly direction: VoteDirection
  readonly revokedAt: Date | null
  readonly counting: VoteCounting
  /** What it weighs when it counts, in thousandths of a vote: its voter's standing when it was cast (judgement.ts). */
  readonly weight: number
}

/** Whether a ledger entry counts toward its product's trust: counted, and cast by an identity in good standing. */
export const counts = (entry: LedgerEntry): boolean => entry.revokedAt === null && entry.counting === "counted"

/** The tally of the entries that count. */
export const countedTally = (entries: Iterable<LedgerEntry>): Tally => {
  let up = 0
  let down = 0
  for (const entry of entries) if (counts(entry)) entry.direction === "up" ? up++ : down++
  return { up, down }
}

/** The weights of the entries that count, summed by direction (thousandths of a vote). */
export const countedWeights = (entries: Iterable<LedgerEntry>): Tally => {
  let up = 0
  let down = 0
  for (const entry of entries) {
    if (!counts(entry)) continue
    if (entry.direction === "up") up += entry.weight
    else down += entry.weight
  }
  return { up, down }
}

/**
 * A product's stored counters beside what its seed and its ledger say they should be: the counts, and the weighted
 * evidence (`storedWeighted`, `ledgerWeighted`: thousandths of a vote; judgement.ts).
 */
export interface CounterSnapshot {
  readonly id: ProductId
  readonly seed: Tally
  readonly stored: Tally
  readonly ledger: Tally
  readonly storedWeighted: Tally
  readonly ledgerWeighted: Tally
}

/** Counters a repair rewrote. */
export interface Repair {
  readonly id: ProductId
  readonly before: Tally
  readonly after: Tally
}

/** What a product's counters must be: seed + the ledger's counted votes. */
export const expectedCounters = (snapshot: Pick<CounterSnapshot, "seed" | "ledger">): Tally => addTally(snapshot.seed, snapshot.ledger)

/** What a product's weighted evidence must be: its seed at a whole vote each + the ledger's counted weights. */
export const expectedWeighted = (snapshot: Pick<CounterSnapshot, "seed" | "ledgerWeighted">): Tally =>
  weightedOf(snapshot.seed, snapshot.ledgerWeighted)

export const hasDrifted = (snapshot: CounterSnapshot): boolean =>
  !tallyEquals(snapshot.stored, expectedCounters(snapshot)) || !tallyEquals(snapshot.storedWeighted, expectedWeighted(snapshot))

/** A vote cast within rate limits: refused, with the decision, when a bucket had no token; else cast. */
export type LimitedCast =
  | { readonly _tag: "Limited"; readonly decision: Extract<Decision, { _tag: "Limited" }> }
  | { readonly _tag: "Cast"; readonly decision: Extract<Decision, { _tag: "Allowed" }>; readonly result: CastResult }

type CastFailure = ProductNotFound | ProductRemoved | AgentRevoked | StoreError

export class VoteLedger extends Context.Service<
  VoteLedger,
  {
    /**
     * Records one voter's vote and moves the counters in one atomic step: N
     * concurrent votes are N counted. One live vote per (product, voter). An
     * agent's standing is checked in the same step: a revoked agent's vote is
     * refused, even one racing the revocation. The vote's budgets are not drawn on.
     */
    readonly cast: (vote: CastVote) => Effect.Effect<CastResult, CastFailure>
    /**
     * Takes a token from every bucket of `limits` (the buckets of the store's
     * RateLimits) and, if each had one, casts the vote, which draws on its budgets
     * if it records or changes something (CastVote.budgets). A limited vote records
     * nothing. On a server this is one statement: the limits cost no round trip
     * of their own.
     */
    readonly castWithin: (limits: ReadonlyArray<Limit>, vote: CastVote) => Effect.Effect<LimitedCast, CastFailure>
    /** Stored counters, seed counts and ledger tallies of every product, in batches (reconciliation). */
    readonly snapshots: (batchSize: number) => Stream.Stream<ReadonlyArray<CounterSnapshot>, StoreError>
    /**
     * Repairs drifted products to seed + ledger. Each snapshot's expected counters are written only
     * if the product still has the snapshot's counters and seed (compare-and-set); a product that
     * moved since (a vote, an import) is recounted under its row lock instead, so a concurrent vote
     * is never overwritten by a stale count. One call is one transaction.
     */
    readonly repair: (drifted: ReadonlyArray<CounterSnapshot>) => Effect.Effect<ReadonlyArray<Repair>, StoreError>
    /** What the product's ledger holds, by kind of voter and by how the votes count (its trust's formation). */
    readonly formation: (id: ProductId) => Effect.Effect<LedgerFormation, StoreError>
  }
>()("@productdir/domain/VoteLedger") {}

/**
 * castWithin as two steps, for stores whose rate limits live in one process: the limits are taken,
 * then the vote is cast by `castBudgeted`, which draws on the vote's budgets itself (limited, or cast).
 * The answer's decision is the rate limits' (what the RateLimit-* headers tell a client).
 */
export const castAfterTaking =
  (limits: RateLimits["Service"], castBudgeted: (vote: CastVote) => Effect.Effect<LimitedCast, CastFailure>) =>
  (limitSet: ReadonlyArray<Limit>, vote: CastVote): Effect.Effect<LimitedCast, CastFailure> =>
    Effect.flatMap(
      limits.take(limitSet),
      (decision): Effect.Effect<LimitedCast, CastFailure> =>
        decision._tag === "Limited"
          ? Effect.succeed({ _tag: "Limited", decision })
          : Effect.map(castBudgeted(vote), (cast) => (cast._tag === "Limited" ? cast : { ...cast, decision }))
    )
