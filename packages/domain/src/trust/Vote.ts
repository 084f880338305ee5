/** The vote (docs/api.md, "The vote"): request, outcome, and what a store needs to cast one. */
import { Schema } from "effect"
import type { ProductId } from "../record/ids.ts"
import { agentViewPath, PRODUCTS_PATH, problemsPath, productPath, VOTE_PATH } from "../record/paths.ts"
import { ProductRef } from "../record/ProductRef.ts"
import { type FieldRule, withFieldRules } from "../record/fieldRules.ts"
import { boundedText, isVisibleText } from "../record/text.ts"
import { type BurstGuard, VoteCounting } from "./voteCounting.ts"
import type { Limit } from "../ports/RateLimits.ts"
import type { Tally } from "./trust.ts"
import { TrustSummary } from "./trust.ts"
import { CountedAs, type Voter } from "./Voter.ts"
import { MILLI, VOTE_WEIGHTS } from "./judgement.ts"

export const VoteDirection = Schema.Literals(["up", "down"]).annotate({
  message: 'must be "up" or "down"',
  identifier: "VoteDirection",
  description: "`up` vouches for the product, `down` warns against it"
})
export type VoteDirection = typeof VoteDirection.Type

/** Accepted for compatibility with earlier clients; never an identity (Voter.ts). */
export const VoterId = Schema.String.check(
  Schema.isMinLength(1, { message: "must not be empty" }),
  Schema.isMaxLength(128, { message: "must be at most 128 characters" }),
  Schema.isPattern(/^[A-Za-z0-9._:@-]*$/u, { message: "must use only letters, digits and . _ : @ -" })
).annotate({
  identifier: "VoterId",
  description:
    "Accepted for compatibility, and ignored: a name the client states proves nothing, so it is not an identity. Register with POST /agents and send the key, or sign the request, to vote as an agent. 1..128 characters of [A-Za-z0-9._:@-]",
  examples: ["agent:research-bot@example"]
})

export const REASON_MAX_LENGTH = 280

/**
 * The problem a down vote reports. Described before its check: a description given after a filter of
 * ours is lost from the JSON Schema (and so from the OpenAPI document and /llms.txt).
 */
export const VoteReason = boundedText(REASON_MAX_LENGTH)
  .annotate({
    description: `Only with direction \`down\`: the problem you hit (≤ ${REASON_MAX_LENGTH} characters). One per vote: a new reason replaces the one you gave before`
  })
  .check(isVisibleText)

/** A reason reports a problem, so it goes with a down vote only. */
const reasonOnlyWhenDown: FieldRule = (vote) =>
  vote.reason !== undefined && vote.direction !== "down"
    ? { path: ["reason"], message: 'goes only with direction "down": an up vote reports no problem' }
    : undefined

/** What a vote says, over every door: the product, the direction, and a down vote's reason. */
const ballotFields = {
  entity_id: ProductRef.annotate({ description: "The product id (a slug is accepted too)" }),
  direction: Schema.optionalKey(VoteDirection).annotate({ description: "Defaults to `up`" }),
  reason: Schema.optionalKey(VoteReason)
}

const voteExamples = [
  {
    entity_id: "0b7f3c8e-3b52-4c8e-9d0a-6f1f2d3c4b5a",
    direction: "down" as const,
    reason: "No SSO on the team plan"
  }
]

/** POST /vote's body: a ballot, and `voter_id`, accepted for older clients and ignored (a stated name is no identity). */
export const VoteRequest = Schema.Struct({
  entity_id: ballotFields.entity_id,
  direction: ballotFields.direction,
  voter_id: Schema.optionalKey(VoterId),
  reason: ballotFields.reason
})
  .pipe(withFieldRules(reasonOnlyWhenDown))
  .annotate({ identifier: "VoteRequest", examples: voteExamples })
export type VoteRequest = typeof VoteRequest.Type

/**
 * The MCP vote tool's arguments: a ballot alone. A field a model sees in a tool's schema is one it fills in, and
 * `voter_id` would change nothing (the voter is who sent the request).
 */
export const VoteBallot = Schema.Struct(ballotFields)
  .pipe(withFieldRules(reasonOnlyWhenDown))
  .annotate({ identifier: "VoteBallot", examples: voteExamples })
export type VoteBallot = typeof VoteBallot.Type

export const VoteStatus = Schema.Literals(["recorded", "unchanged", "changed"]).annotate({
  description: "`recorded`: a new vote (201); `unchanged`: the same vote again; `changed`: the vote moved to the other direction"
})
export type VoteStatus = typeof VoteStatus.Type

/** A vote that succeeds as sent: the template search results and views carry, ready to POST. */
export const VoteTemplate = Schema.Struct({
  method: Schema.Literal("POST"),
  href: Schema.String,
  content_type: Schema.Literal("application/json"),
  body: Schema.Struct({ entity_id: Schema.String, direction: VoteDirection }).annotate({
    description: "A request that succeeds as sent: an up vote for this product"
  })
}).annotate({ identifier: "VoteTemplate" })
export type VoteTemplate = typeof VoteTemplate.Type

export const voteTemplateOf = (id: ProductId): VoteTemplate => ({
  method: "POST",
  href: VOTE_PATH,
  content_type: "application/json",
  body: { entity_id: id, direction: "up" }
})

export const VoteOutcome = Schema.Struct({
  entity_id: Schema.String,
  direction: VoteDirection,
  status: VoteStatus,
  counted_as: CountedAs,
  counting: VoteCounting,
  weight: Schema.Finite.annotate({
    description: `What this vote weighs in the product's judgement (trust_score, trust_ratio), in votes: its voter's standing when it was cast. An agent the integrity pass gave standing ${VOTE_WEIGHTS.standing / MILLI}, an agent without it yet ${VOTE_WEIGHTS.agent / MILLI}, a network address ${VOTE_WEIGHTS.address / MILLI}. It counts as one vote in trust_up and trust_down either way`,
    examples: [VOTE_WEIGHTS.standing / MILLI, VOTE_WEIGHTS.agent / MILLI, VOTE_WEIGHTS.address / MILLI]
  }),
  trust: TrustSummary,
  links: Schema.Struct({
    agent_view: Schema.String.annotate({ description: "The product's decision view, with the trust this vote moved" }),
    problems: Schema.String.annotate({ description: "The product's known problems (a down vote's reason is listed there)" }),
    record: Schema.String,
    search: Schema.String.annotate({ description: "Search for other products" })
  }).annotate({ description: "Where to go next" })
}).annotate({ identifier: "VoteOutcome" })

/** Where a vote's response leads: the product voted on (by id, which every path takes), and search. */
export const voteLinksOf = (id: ProductId): VoteOutcome["links"] => ({
  agent_view: agentViewPath(id),
  problems: problemsPath(id),
  record: productPath(id),
  search: PRODUCTS_PATH
})
export type VoteOutcome = typeof VoteOutcome.Type

/** A vote as a store receives it: the voter is already resolved (a proven agent, or an address hash). */
export interface CastVote {
  /** Product id or slug. */
  readonly entity: string
  readonly voter: Voter
  readonly direction: VoteDirection
  readonly reason?: string | undefined
  /** The client's neighbourhood as a keyed hash (an IPv6 /48, an IPv4 /24): evidence for the integrity pass. */
  readonly network?: string | undefined
  /** Hold a new vote without standing when its product is in a burst (voteCounting.ts); absent: every vote counts at once. */
  readonly guard?: BurstGuard | undefined
  /**
   * Budgets the vote draws on only when it records or changes something (the per-product budgets of
   * a client's networks): a vote sent again unchanged, a retry, costs none of them. Over one, the
   * vote is refused as limited and records nothing.
   */
  readonly budgets?: ReadonlyArray<Limit> | undefined
}

export interface CastResult {
  /** The product voted on (the vote may have named it by slug). */
  readonly productId: ProductId
  readonly direction: VoteDirection
  readonly status: VoteStatus
  /** How the vote counts now (a changed vote keeps how its first one counted). */
  readonly counting: VoteCounting
  /** Counters after the vote, read in the vote's own transaction. */
  readonly counters: Tally
  /** The product's weighted evidence after the vote (judgement.ts). */
  readonly weighted: Tally
  /** What the vote weighs (thousandths of a vote), by its voter's standing when it was cast. */
  readonly weight: number
}

/** How a vote moves the counters, given the voter's previous live vote. */
export const voteTransition = (
  previous: VoteDirection | undefined,
  next: VoteDirection
): { readonly status: VoteStatus; readonly delta: Tally } => {
  if (previous === next) return { status: "unchanged", delta: { up: 0, down: 0 } }
  const add = next === "up" ? { up: 1, down: 0 } : { up: 0, down: 1 }
  if (previous === undefined) return { status: "recorded", delta: add }
  return { status: "changed", delta: next === "up" ? { up: 1, down: -1 } : { up: -1, down: 1 } }
}
