/**
 * Agents as the transports use them (docs/api.md, "Voter identity"):
 * registration, limited per client network and day; proof of an API key;
 * enrolment of a verified signed agent. What operators do with agents is
 * AgentAdministration's.
 *
 * A new identity costs the same however it comes: registering one and
 * enrolling a signed agent on its first vote draw on one budget per client
 * network and day. Otherwise a key directory on a wildcard domain would mint
 * a new voter per request (docs/threat-model.md).
 */
import { Cache, Context, Duration, Effect, Exit, Layer, Option, Schema } from "effect"
import {
  type Agent,
  type AgentId,
  type AgentRegistration,
  AgentRegistry,
  type Decision,
  decide,
  RateLimits,
  type SignedIdentity,
  type StoreError,
  withoutHiddenCharacters
} from "@productdir/domain"
import { randomUUID } from "node:crypto"
import * as AgentKeys from "./AgentKeys.ts"
import type { NetworkLevel } from "./network.ts"
import { VoterIdentity } from "./VoterIdentity.ts"

const INVALID_CREDENTIALS = {
  malformed: "The API key is not one this directory issues (pdk_ and 43 characters)",
  unknown: "No agent has this API key",
  revoked: "This agent is revoked: its votes do not count"
} as const

/** A new identity over the client network's daily budget (a signed agent's first vote). */
export class EnrolmentLimited extends Schema.TaggedError<EnrolmentLimited>()("EnrolmentLimited", {
  limit: Schema.Number,
  windowSeconds: Schema.Number,
  retryAfterSeconds: Schema.Number,
  resetSeconds: Schema.Number,
  /** The network budget that was spent (`register:<level>:<network>`). */
  key: Schema.String
}) {}

/** A proof of identity that proves nothing: a key no agent has, or an agent an operator revoked. */
export class InvalidCredentials extends Schema.TaggedError<InvalidCredentials>()("InvalidCredentials", {
  reason: Schema.Literals(["malformed", "unknown", "revoked"])
}) {
  override get message() {
    return INVALID_CREDENTIALS[this.reason]
  }
}

export interface AgentsSettings {
  /**
   * New identities (registrations, and signed agents' first votes) per day at each level of a client's
   * networks (`v6/64` … `v6/32`, `v4/32` … `v4/16`): a /48 is one site however many /64s it holds. A
   * level absent or 0 has no budget.
   */
  readonly registrationsPerNetwork: Readonly<Partial<Record<NetworkLevel, number>>>
}

export type Registration =
  | {
      readonly _tag: "Registered"
      readonly agent: Agent
      readonly apiKey: string
      readonly decision: Extract<Decision, { _tag: "Allowed" }>
    }
  | { readonly _tag: "Limited"; readonly decision: Extract<Decision, { _tag: "Limited" }> }

const DAY_SECONDS = 86_400

/**
 * How long a proven key is taken as proven without asking the store again. A vote
 * re-checks its agent's standing in its own transaction (VoteLedger), so a key
 * revoked meanwhile still counts nothing: the cache only saves a lookup.
 */
const KEY_PROOF_TTL = Duration.seconds(10)

export class Agents extends Context.Service<
  Agents,
  {
    /** A new agent from `address`; a `local` client (on the server's machine, no proxy: Caster.local) draws no budget. */
    readonly register: (request: AgentRegistration, address: string, local?: boolean) => Effect.Effect<Registration, StoreError>
    /** The agent an API key belongs to, if it is in good standing. */
    readonly authenticate: (apiKey: string) => Effect.Effect<Agent, InvalidCredentials | StoreError>
    /**
     * The agent a verified signature names, if it is in good standing; enrolled on its first vote,
     * from `address`'s daily budget of new identities.
     */
    readonly signed: (identity: SignedIdentity, address: string) => Effect.Effect<Agent, InvalidCredentials | EnrolmentLimited | StoreError>
  }
>()("@productdir/usecases/Agents") {}

const inGoodStanding = (agent: Agent) =>
  agent.revokedAt === null ? Effect.succeed(agent) : Effect.fail(new InvalidCredentials({ reason: "revoked" }))

export const layer = (settings: AgentsSettings) =>
  Layer.effect(
    Agents,
    Effect.gen(function* () {
      const registry = yield* AgentRegistry
      const limits = yield* RateLimits
      const identity = yield* VoterIdentity

      // Key hash -> agent, for keys that proved an agent; unknown keys are not cached.
      const proven = yield* Cache.makeWith(
        (hash: string) =>
          Effect.flatMap(
            registry.byKeyHash(hash),
            Option.match({ onNone: () => Effect.fail(new InvalidCredentials({ reason: "unknown" })), onSome: Effect.succeed })
          ),
        { capacity: 10_000, timeToLive: (exit) => (Exit.isSuccess(exit) ? KEY_PROOF_TTL : Duration.zero) }
      )

      /** One new identity from `address`: the daily budgets, at every level of its networks, both ways of becoming an agent draw on. */
      const newIdentity = (address: string) =>
        limits.take(
          identity.networkKeys(address).map((network) => ({
            key: `register:${network.level}:${network.key}`,
            max: settings.registrationsPerNetwork[network.level as NetworkLevel] ?? 0,
            windowSeconds: DAY_SECONDS
          }))
        )

      return Agents.of({
        register: Effect.fn("Agents.register")(function* (request, address, local) {
          const network = identity.addressKey(address)
          const decision = local === true ? decide([]) : yield* newIdentity(address)
          if (decision._tag === "Limited") return { _tag: "Limited", decision } as const
          const apiKey = AgentKeys.newApiKey()
          const agent = yield* registry.register({
            id: randomUUID() as AgentId,
            // What a reader could not see is no part of a name (hiddenText.ts): "research-bot" and the same with a hidden
            // instruction in tag characters are one name.
            name: withoutHiddenCharacters(request.name).trim(),
            contact: withoutHiddenCharacters(request.contact ?? "").trim() || null,
            keyHash: AgentKeys.keyHash(apiKey),
            keyHint: AgentKeys.keyHint(apiKey),
            registeredFrom: network
          })
          return { _tag: "Registered", agent, apiKey, decision } as const
        }),
        authenticate: (apiKey) =>
          AgentKeys.isWellFormed(apiKey)
            ? Effect.flatMap(Cache.get(proven, AgentKeys.keyHash(apiKey)), inGoodStanding)
            : Effect.fail(new InvalidCredentials({ reason: "malformed" })),
        signed: Effect.fn("Agents.signed")(function* (signedIdentity, address) {
          const known = yield* registry.findSigned(signedIdentity)
          if (Option.isSome(known)) return yield* inGoodStanding(known.value)
          const network = identity.addressKey(address)
          const decision = yield* newIdentity(address)
          if (decision._tag === "Limited") {
            const { limit, windowSeconds, retryAfterSeconds, resetSeconds, key } = decision
            return yield* new EnrolmentLimited({ limit, windowSeconds, retryAfterSeconds, resetSeconds, key })
          }
          return yield* Effect.flatMap(
            registry.enrolSigned({ ...signedIdentity, id: randomUUID() as AgentId, registeredFrom: network }),
            inGoodStanding
          )
        })
      })
    })
  )
