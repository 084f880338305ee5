/** The vote (DESIGN §5): request, outcome, and what a store needs to cast one. */
import { Schema } from "effect"
import type { Product } from "./Product.ts"
import type { Tally } from "./trust.ts"
import { Trust } from "./trust.ts"

export const VoteDirection = Schema.Literals(["up", "down"]).annotate({
  identifier: "VoteDirection",
  description: "`up` vouches for the product, `down` warns against it"
})
export type VoteDirection = typeof VoteDirection.Type

export const VoterId = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9._:@-]{1,128}$/)).annotate({
  identifier: "VoterId",
  description: "A stable id of the voting agent: 1..128 characters of [A-Za-z0-9._:@-]",
  examples: ["agent:research-bot@example"]
})

export const REASON_MAX_LENGTH = 280

export const VoteRequest = Schema.Struct({
  entity_id: Schema.String.check(Schema.isNonEmpty(), Schema.isMaxLength(200)).annotate({
    description: "The product id (a slug is accepted too)"
  }),
  direction: Schema.optionalKey(VoteDirection).annotate({ description: "Defaults to `up`" }),
  voter_id: Schema.optionalKey(VoterId).annotate({
    description: "When absent, the voter is a keyed hash of the client address"
  }),
  reason: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(REASON_MAX_LENGTH), Schema.makeFilter((s: string) => s.trim().length > 0 || "a reason must not be blank"))
  ).annotate({ description: `Only with direction \`down\`: the problem you hit (≤ ${REASON_MAX_LENGTH} characters)` })
}).check(
  Schema.makeFilter((vote) =>
    vote.reason !== undefined && vote.direction !== "down"
      ? { path: ["reason"], issue: "a reason goes only with direction \"down\"" }
      : undefined
  )
).annotate({
  identifier: "VoteRequest",
  examples: [{ entity_id: "0b7f3c8e-3b52-4c8e-9d0a-6f1f2d3c4b5a", direction: "down", voter_id: "agent:research-bot", reason: "No SSO on the team plan" }]
})
export type VoteRequest = typeof VoteRequest.Type

export const VoteStatus = Schema.Literals(["recorded", "unchanged", "changed"]).annotate({
  description: "`recorded`: a new vote (201); `unchanged`: the same vote again; `changed`: the vote moved to the other direction"
})
export type VoteStatus = typeof VoteStatus.Type

export const VoteOutcome = Schema.Struct({
  entity_id: Schema.String,
  direction: VoteDirection,
  status: VoteStatus,
  trust: Trust
}).annotate({ identifier: "VoteOutcome" })
export type VoteOutcome = typeof VoteOutcome.Type

/** A vote as a store receives it: the voter is already resolved (id or address hash). */
export interface CastVote {
  /** Product id or slug. */
  readonly entity: string
  readonly voter: string
  readonly direction: VoteDirection
  readonly reason?: string | undefined
}

export interface CastResult {
  readonly product: Product
  readonly direction: VoteDirection
  readonly status: VoteStatus
  /** Counters after the vote, read in the vote's own transaction. */
  readonly counters: Tally
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
