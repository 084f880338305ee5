/**
 * Agents: voters that proved who they are (docs/api.md, "Voter identity").
 * A registered agent holds an API key from `POST /agents` (stored only as its
 * hash); a signed agent is known by its key directory and key id, and enrolled
 * the first time one of its signed votes is verified. Either can be revoked by
 * an operator, and restored; a revoked agent's votes stay in the ledger and
 * count for nothing (VoteLedger.ts states the rule).
 */
import { Schema } from "effect"
import { isAtMostCharacters, isStorableText, isVisibleText } from "../record/text.ts"

export const AgentId = Schema.String.check(Schema.isUUID())
  .pipe(Schema.brand("AgentId"))
  .annotate({
    identifier: "AgentId",
    description: "Agent identifier (UUID)",
    examples: ["5d0c9a52-8f61-4a47-b3d2-0f7e3b1c9a20" as never]
  })
export type AgentId = typeof AgentId.Type

export type AgentKind = "registered" | "signed"

export interface Agent {
  readonly id: AgentId
  readonly kind: AgentKind
  readonly name: string
  readonly contact: string | null
  /** Registered agents: the first characters of the key, so an operator can tell keys apart. */
  readonly keyHint: string | null
  /** Signed agents: the origin of the key directory, and the key's id (its RFC 7638 thumbprint). */
  readonly keyDirectory: string | null
  readonly keyId: string | null
  /**
   * The keyed hash of the client network it registered (or first voted) from: agents made in bulk
   * from one network share it, so an operator can find them together. Never a raw address.
   */
  readonly registeredFrom: string | null
  readonly createdAt: Date
  readonly revokedAt: Date | null
  /**
   * Since when the agent has standing (docs/api.md, "How votes count"): the integrity pass gives it to
   * agents registered days ago whose votes counted; their votes count at once, even in a burst.
   */
  readonly standingSince: Date | null
}

/** An agent with what it has cast: for operators deciding whether to revoke it. */
export interface AgentRecord extends Agent {
  /** Votes in the ledger, counted or not. */
  readonly votes: number
  /** Products it voted on. */
  readonly products: number
}

/** What a store needs to register an agent: the key itself is never given to it. */
export interface NewAgent {
  readonly id: AgentId
  readonly name: string
  readonly contact: string | null
  readonly keyHash: string
  readonly keyHint: string
  readonly registeredFrom: string | null
}

/** A signed agent's identity: who vouches for the key, and which key. */
export interface SignedIdentity {
  readonly keyDirectory: string
  readonly keyId: string
}

/** What a store needs to enrol a signed agent. */
export interface NewSignedAgent extends SignedIdentity {
  readonly id: AgentId
  readonly registeredFrom: string | null
}

/** The counters of a product a revocation or a restore recounted. */
export interface Recount {
  readonly id: string
  readonly before: { readonly up: number; readonly down: number }
  readonly after: { readonly up: number; readonly down: number }
}

/** What a revoke or a restore changed. */
export interface StandingChange {
  readonly agent: Agent
  /** False when the agent already stood that way: nothing changed. */
  readonly changed: boolean
  /** Votes marked (revoke) or unmarked (restore). */
  readonly votes: number
  readonly recounted: ReadonlyArray<Recount>
}

const requiredText = (max: number) => Schema.String.check(isVisibleText, isAtMostCharacters(max), isStorableText)

/** An email address (plain, or as a mailto: URL) or an http(s) URL: what an operator can use to reach someone. */
const CONTACT = /^(?:(?:mailto:)?[^\s@:/]+@[^\s@/]+\.[^\s@/]+|https?:\/\/[^\s/?#]+\.[^\s/?#]+(?:[/?#]\S*)?)$/iu

export const AgentRegistration = Schema.Struct({
  name: requiredText(100).annotate({
    description: "What the agent is called, for people reading the directory's records (1..100 characters)",
    examples: ["research-bot"]
  }),
  // Described before its check: a description given after a filter of ours is lost from the JSON Schema.
  contact: Schema.optionalKey(
    requiredText(200)
      .annotate({
        description: "How an operator can reach whoever runs the agent: an email address or a URL (≤ 200 characters)",
        examples: ["mailto:ops@example.com"]
      })
      .check(Schema.makeFilter((s: string) => CONTACT.test(s.trim()) || "must be an email address (or a mailto: URL) or an http(s) URL"))
  )
}).annotate({
  identifier: "AgentRegistration",
  examples: [{ name: "research-bot", contact: "mailto:ops@example.com" }]
})
export type AgentRegistration = typeof AgentRegistration.Type

export const AgentCredentials = Schema.Struct({
  agent_id: Schema.String.annotate({ description: "The agent's id: its votes count under it" }),
  name: Schema.String,
  contact: Schema.NullOr(Schema.String),
  api_key: Schema.String.annotate({
    description: "The agent's secret key. Shown once, never again (only its hash is stored): keep it."
  }),
  usage: Schema.String.annotate({
    description: "How to use the key: as `Authorization: Bearer <api_key>` on POST /vote and on /mcp"
  }),
  created_at: Schema.String.annotate({ description: "ISO 8601" })
}).annotate({ identifier: "AgentCredentials", description: "A registered agent and its API key" })
export type AgentCredentials = typeof AgentCredentials.Type
