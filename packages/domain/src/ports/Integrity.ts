/**
 * What the integrity pass reads from a store and writes back (docs/threat-model.md, "Rings"; the
 * pass itself is packages/usecases/src/integrity/). It reads the recent ledger as columns of small
 * numbers (a million votes are a few arrays, not a million objects), finds voter groups that vote
 * the same products in the same windows, and then, in one transaction: discounts the votes of the
 * groups it found, counts the held votes that pass, and recounts the products they touched. The
 * store keeps the groups with their evidence, for operators to confirm or clear.
 */
import { Context, type Effect, Schema } from "effect"
import type { StoreError } from "../support/errors.ts"
import type { ProductId } from "../record/ids.ts"
import type { Recount } from "../identity/Agent.ts"
import type { Tally } from "../trust/trust.ts"

/** How a vote counts, as a number in the window's columns. */
export const COUNTED = 0
export const HELD = 1
export const DISCOUNTED = 2

/**
 * The recent ledger, as columns, in order by product, then by voter: product `p`'s votes (`p` an index
 * into `products`) are `starts[p]` up to `starts[p + 1]` (`productOf(window, i)` finds a vote's). Vote
 * `i` is `voter[i]`'s (an index into `voters`), cast `seconds[i]` after `since`, counting as
 * `counting[i]` (COUNTED, HELD, DISCOUNTED), up (0) or down (1) as `direction[i]`. A vote an operator
 * cleared a group of is `cleared[i]` = 1: no pass discounts it again. `standing[v]` is 1 for a voter
 * that is an agent with standing. The runs stand for a column of every vote's product, which would be 40 MB
 * at ten million votes, at the pass's peak; the pass reads votes product by product anyway.
 *
 * A vote's network is `networkOf(i)` (into `networks`; -1 when unknown). A store must know it for every
 * vote on a product with a held vote in the window: the pass judges a burst's agents by their networks
 * (release.ts). Elsewhere it may say -1: a column of every vote's network would be a fifth of the window's
 * memory, for a question the pass asks of a burst's votes and of a group's, and a group's are looked up
 * (`IntegrityLedger.networks`) once it is found.
 */
export interface LedgerWindow {
  readonly since: Date
  readonly products: ReadonlyArray<ProductId>
  readonly voters: ReadonlyArray<string>
  readonly networks: ReadonlyArray<string>
  /** `products.length + 1` places: a product with no vote in the window (a revoked held one) has an empty run. */
  readonly starts: Int32Array
  readonly voter: Int32Array
  readonly networkOf: (i: number) => number
  readonly seconds: Int32Array
  readonly counting: Uint8Array
  readonly direction: Uint8Array
  readonly cleared: Uint8Array
  readonly standing: Uint8Array
}

/** The votes in a window. */
export const votesIn = (window: Pick<LedgerWindow, "starts">): number => window.starts[window.starts.length - 1] ?? 0

/** The product of vote `i` (an index into the window's `products`): the run it is in, found by halving. */
export const productOf = (window: Pick<LedgerWindow, "starts">, i: number): number => {
  const { starts } = window
  // The last product whose run starts at or before i: the run of an empty product before it ends there too.
  let low = 0
  let high = starts.length - 2
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (starts[middle]! <= i) low = middle
    else high = middle - 1
  }
  return low
}

/** Calls `each(i, p)` for every vote `i` of the window, in order, with its product `p`. */
export const forEachVote = (window: Pick<LedgerWindow, "starts">, each: (i: number, p: number) => void): void => {
  const { starts } = window
  for (let p = 0; p + 1 < starts.length; p++) for (let i = starts[p]!, end = starts[p + 1]!; i < end; i++) each(i, p)
}

/**
 * Where each product's run starts (`starts`), for `votes` votes in product order, vote `i` of product
 * `productAt(i)`, among `products`: a count of each product's votes, summed.
 */
export const runsOf = (votes: number, productAt: (i: number) => number, products: number): Int32Array => {
  const starts = new Int32Array(products + 1)
  for (let i = 0; i < votes; i++) starts[productAt(i) + 1]!++
  for (let p = 0; p < products; p++) starts[p + 1]! += starts[p]!
  return starts
}

export const GroupStatus = Schema.Literals(["suspected", "confirmed", "cleared"])
export type GroupStatus = typeof GroupStatus.Type

/** What made a group suspect: for an operator to judge. */
export interface GroupEvidence {
  /**
   * How it was found: `lockstep` (the same products within an hour of each other), `overlap` (over days),
   * `addresses` (one product voted one way by addresses that vote nothing else, which neither its agents nor
   * its other visitors corroborate: an anonymous drip).
   */
  readonly method: "lockstep" | "overlap" | "addresses"
  /** Voters (ledger keys: `agent:<id>`, `ip:<hash>`), sorted. */
  readonly members: ReadonlyArray<string>
  readonly products: ReadonlyArray<ProductId>
  /** When its votes were cast: the earliest and latest, per product. */
  readonly windows: ReadonlyArray<{ readonly product: ProductId; readonly from: string; readonly to: string }>
  /** Its members' neighbourhoods (keyed hashes of IPv6 /48s, IPv4 /24s) and how many votes came from each. */
  readonly networks: ReadonlyArray<{ readonly network: string; readonly votes: number }>
  /** Its votes the pass found (discounted, or waiting for an operator's review). */
  readonly votes: number
  /** Its votes ÷ (members × products): a ring votes all its targets; a community of readers some. */
  readonly coverage?: number | undefined
  /** The median member's share of its recent votes that are the group's: a ring's accounts exist for their targets. */
  readonly focus?: number | undefined
  /**
   * True when the group is not dense or focused enough to be discounted on sight (established voters
   * who follow the same newsletter look like a slow ring): its votes keep counting, and its members
   * their standing, until an operator confirms it.
   */
  readonly review?: boolean | undefined
}

export interface VoteGroup {
  readonly id: string
  readonly status: GroupStatus
  readonly foundAt: Date
  readonly decidedAt: Date | null
  readonly evidence: GroupEvidence
}

/** A vote by its product and voter (the ledger's key). */
export interface VoteKey {
  readonly productId: ProductId
  readonly voter: string
}

/** Whether a group's votes are discounted: confirmed, or suspected and not waiting for review. */
export const discounts = (group: Pick<VoteGroup, "status" | "evidence">): boolean =>
  group.status === "confirmed" || (group.status === "suspected" && group.evidence.review !== true)

/** What a pass decided. */
export interface Verdict {
  /**
   * Groups found (new, or grown), with their votes: discounted, or (a group for review) marked as the
   * group's and left counting, for an operator's confirmation to discount.
   */
  readonly groups: ReadonlyArray<{
    readonly id: string
    readonly evidence: GroupEvidence
    readonly votes: ReadonlyArray<VoteKey>
    readonly discount: boolean
  }>
  /** Held votes that pass: counted from now on. */
  readonly release: ReadonlyArray<VoteKey>
}

export interface Applied {
  /** Votes discounted, and held votes counted, by this pass (those that were already so are not counted again). */
  readonly discounted: number
  readonly released: number
  readonly recounted: ReadonlyArray<Recount>
}

/** What a settling of standing changed: the agents (ledger keys, `agent:<id>`) that gained it, and those that lost it. */
export interface Settled {
  readonly gained: ReadonlyArray<string>
  readonly lost: ReadonlyArray<string>
}

/** Who gets standing (voteCounting.ts): agents old enough, whose votes counted, and that no group holds. */
export interface StandingRule {
  /** Registered (or first seen) at least this long before. */
  readonly minAgeSeconds: number
  /** With at least this many counted votes cast at least `settledSeconds` before. */
  readonly minVotes: number
  readonly settledSeconds: number
}

export const DEFAULT_STANDING: StandingRule = { minAgeSeconds: 3 * 86_400, minVotes: 3, settledSeconds: 86_400 }

export class GroupNotFound extends Schema.TaggedError<GroupNotFound>()("GroupNotFound", { id: Schema.String }) {
  override get message() {
    return `No group has the id ${this.id}`
  }
}

/** An operator's decision on a group, and the products it recounted. */
export interface GroupDecision {
  readonly group: VoteGroup
  /** False when the group already stood so: nothing changed. */
  readonly changed: boolean
  readonly votes: number
  readonly recounted: ReadonlyArray<Recount>
}

export class IntegrityLedger extends Context.Service<
  IntegrityLedger,
  {
    /** Votes cast since `since`, and every held vote whenever it was cast. */
    readonly window: (since: Date) => Effect.Effect<LedgerWindow, StoreError>
    /** The networks the votes `keys` were cast from, in their order (null when unknown, or when there is no such vote). */
    readonly networks: (keys: ReadonlyArray<VoteKey>) => Effect.Effect<ReadonlyArray<string | null>, StoreError>
    /**
     * The weighed evidence of these products, in their order (thousandths of a vote, seed included: what the
     * judgement sums); null for one not in the catalog. The pass asks it of the few products on which a
     * reversal may be held (trust/voteCounting.ts, isReversal), and reads nothing else of them.
     */
    readonly evidence: (products: ReadonlyArray<ProductId>) => Effect.Effect<ReadonlyArray<Tally | null>, StoreError>
    /** Every group found so far, newest first. */
    readonly groups: Effect.Effect<ReadonlyArray<VoteGroup>, StoreError>
    /**
     * Writes a verdict in one transaction: groups upserted (a cleared group keeps its decision), their
     * votes discounted (unless cleared), held votes counted, and the products they touched recounted
     * under their row locks.
     */
    readonly apply: (verdict: Verdict, at: Date) => Effect.Effect<Applied, StoreError>
    /**
     * Gives standing to the agents the rule names, and takes it from members of groups whose votes are
     * discounted (not cleared, not waiting for review); who gained it and who lost it.
     */
    readonly settleStanding: (rule: StandingRule, at: Date) => Effect.Effect<Settled, StoreError>
    /**
     * An operator confirms a group (its votes stay discounted, its members lose standing) or clears it
     * (its votes count again, and no later pass discounts them); the products are recounted at once.
     */
    readonly decide: (id: string, status: "confirmed" | "cleared", at: Date) => Effect.Effect<GroupDecision, GroupNotFound | StoreError>
  }
>()("@productdir/domain/IntegrityLedger") {}
