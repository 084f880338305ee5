/** The agents the directory knows, and their standing (Agent.ts). */
import { Context, type Effect, type Option } from "effect"
import type { Agent, AgentId, AgentRecord, NewAgent, NewSignedAgent, SignedIdentity, StandingChange } from "../identity/Agent.ts"
import type { AgentNotFound, StoreError } from "../support/errors.ts"

export class AgentRegistry extends Context.Service<
  AgentRegistry,
  {
    readonly register: (agent: NewAgent) => Effect.Effect<Agent, StoreError>
    /** The agent whose API key hashes to `keyHash`, revoked or not. */
    readonly byKeyHash: (keyHash: string) => Effect.Effect<Option.Option<Agent>, StoreError>
    /**
     * The signed agent of this key, if it was enrolled: the key is the agent, whatever directory URL named it
     * (`…/keys.json`, `…/keys.json?`, `…/%6Beys.json` are one agent). Where a key was enrolled under more than
     * one URL (before this rule), a revoked one of them is answered first, so a revocation holds for the key.
     */
    readonly findSigned: (identity: SignedIdentity) => Effect.Effect<Option.Option<Agent>, StoreError>
    /**
     * Enrols a signed agent, or answers the one already enrolled for its key (safe under
     * concurrent first votes: one of them enrols it, all get the same agent).
     */
    readonly enrolSigned: (agent: NewSignedAgent) => Effect.Effect<Agent, StoreError>
    readonly find: (id: AgentId) => Effect.Effect<AgentRecord, AgentNotFound | StoreError>
    /** Agents oldest first, `limit` at a time after `after`. */
    readonly list: (page: {
      readonly limit: number
      readonly after?: AgentId | undefined
    }) => Effect.Effect<ReadonlyArray<AgentRecord>, StoreError>
    /**
     * Revokes an agent: its votes and problem reports stay, marked, and stop
     * counting; the products it voted on are recounted in the same transaction.
     * A vote it casts from then on is refused (AgentRevoked).
     */
    readonly revoke: (id: AgentId) => Effect.Effect<StandingChange, AgentNotFound | StoreError>
    /** Undoes a revoke: the marks go, the votes count again, the products are recounted. */
    readonly restore: (id: AgentId) => Effect.Effect<StandingChange, AgentNotFound | StoreError>
  }
>()("@productdir/domain/AgentRegistry") {}
