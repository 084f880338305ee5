/**
 * Who a vote counts for (docs/api.md, "Voter identity"): an agent that proved
 * who it is (an API key, or a signature its key directory vouches for), or
 * else the client address the vote came from. A name the client merely states
 * is never an identity: anyone could send anyone's.
 */
import { Schema } from "effect"
import type { AgentId } from "../identity/Agent.ts"

export type Voter =
  | { readonly _tag: "Agent"; readonly agentId: AgentId }
  /** `key`: a keyed hash of the client's network (never the raw address). */
  | { readonly _tag: "Address"; readonly key: string }

export const agentVoter = (agentId: AgentId): Voter => ({ _tag: "Agent", agentId })
export const addressVoter = (key: string): Voter => ({ _tag: "Address", key })

/** The voter's key in the ledger: agents and addresses live in separate namespaces and never collide. */
export const ledgerKey = (voter: Voter): string => (voter._tag === "Agent" ? `agent:${voter.agentId}` : `ip:${voter.key}`)

/** The ledger key of an agent's votes. */
export const agentLedgerKey = (agentId: AgentId): string => `agent:${agentId}`

/** Whether a ledger key is an agent's (else it is an address's). */
export const isAgentLedgerKey = (key: string): boolean => key.startsWith("agent:")

export const CountedAs = Schema.Literals(["agent", "address"]).annotate({
  identifier: "CountedAs",
  description:
    "How the vote was counted: `agent`, for an agent that proved its identity (an API key from POST /agents, or a signed request), one live vote per product and agent; `address`, for any other request, one live vote per product and client address"
})
export type CountedAs = typeof CountedAs.Type

export const countedAs = (voter: Voter): CountedAs => (voter._tag === "Agent" ? "agent" : "address")

/** One of the networks a client belongs to, as a keyed hash: `level` names it (`v6/48`, `v4/24`, …). */
export interface NetworkKey {
  readonly level: string
  readonly key: string
}

/** Who casts a vote, as the transport resolved it. */
export interface Caster {
  /** One live vote per product and voter. */
  readonly voter: Voter
  /** The client's network as a keyed hash: the per-address rate limit, whoever votes. */
  readonly address: string
  /** Every network the client belongs to, nested (its own first): the budgets that apply at each level. */
  readonly networks: ReadonlyArray<NetworkKey>
  /** The client's neighbourhood (an IPv6 /48, an IPv4 /24) as a keyed hash: the integrity pass's evidence. */
  readonly neighbourhood: string
  /**
   * The client network's vote budget was drawn for this request already, before the work of
   * proving who sent it (a signed request's key directory and nonce): the vote does not draw again.
   */
  readonly budgetDrawn?: boolean
  /**
   * A client on the server's own machine, straight to it (no proxy declared, none seen): a developer trying the API.
   * The per-network budgets (anonymous votes per product, new agents per day) do not apply: they stop a crowd of
   * networks, and a developer who changed their mind twice would be stuck for a day. Every other rule does.
   */
  readonly local?: boolean
}
