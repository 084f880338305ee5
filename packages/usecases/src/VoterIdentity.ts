/**
 * Who a vote counts for (docs/api.md, "Voter identity"): the agent the
 * transport proved, or else the client's network (network.ts). Only keyed
 * hashes of networks are ever stored; the key is the configured secret, or a
 * random one generated once and kept in the store so every process uses the
 * same one.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { type AgentId, addressVoter, agentVoter, type Caster, Settings } from "@productdir/domain"
import { createHmac, randomBytes } from "node:crypto"
import { networkOf } from "./network.ts"

export class VoterIdentity extends Context.Service<
  VoterIdentity,
  {
    /** HMAC-SHA256 of the address's network under the server secret: the stored form of a client. */
    readonly addressKey: (address: string) => string
    /** The caster of a request from `address`, by `agent` when one was proven. */
    readonly caster: (request: { readonly address: string; readonly agent?: AgentId | undefined }) => Caster
  }
>()("@productdir/usecases/VoterIdentity") {}

export const layer = (secret: Option.Option<Redacted.Redacted>) =>
  Layer.effect(
    VoterIdentity,
    Effect.gen(function* () {
      const settings = yield* Settings
      const key = Option.isSome(secret)
        ? Redacted.value(secret.value)
        : yield* settings.getOrInit("voter_secret", randomBytes(32).toString("hex"))
      const addressKey = (address: string) => createHmac("sha256", key).update(networkOf(address)).digest("hex").slice(0, 32)
      return VoterIdentity.of({
        addressKey,
        caster: ({ address, agent }) => {
          const client = addressKey(address)
          return { voter: agent !== undefined ? agentVoter(agent) : addressVoter(client), address: client }
        }
      })
    })
  )
