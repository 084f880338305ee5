/**
 * Who a vote counts for (docs/api.md, "Voter identity"): the agent the
 * transport proved, or else the client's network (network.ts). Only keyed
 * hashes of networks are ever stored; the key is the configured secret, or a
 * random one generated once and kept in the store so every process uses the
 * same one.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { type AgentId, addressVoter, agentVoter, type Caster, type NetworkKey, Settings } from "@productdir/domain"
import { createHmac, randomBytes } from "node:crypto"
import { NEIGHBOURHOOD, networkOf, networksOf } from "./network.ts"

/** Networks whose keyed hashes are kept: 4,096 of them take well under a megabyte. */
const RECENT_NETWORKS = 4096

export class VoterIdentity extends Context.Service<
  VoterIdentity,
  {
    /** HMAC-SHA256 of the address's network under the server secret: the stored form of a client. */
    readonly addressKey: (address: string) => string
    /** The caster of a request from `address`, by `agent` when one was proven. */
    readonly caster: (request: { readonly address: string; readonly agent?: AgentId | undefined }) => Caster
    /** Every network `address` belongs to, nested, each as a keyed hash. */
    readonly networkKeys: (address: string) => ReadonlyArray<NetworkKey>
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
      // Every vote hashes its client's networks (three for IPv4, four for IPv6, each an HMAC), and a
      // client sends many: the hashes of recent networks are kept, a bounded table emptied when full.
      const recent = new Map<string, string>()
      const keyed = (text: string) => {
        const known = recent.get(text)
        if (known !== undefined) return known
        const hashed = createHmac("sha256", key).update(text).digest("hex").slice(0, 32)
        if (recent.size >= RECENT_NETWORKS) recent.clear()
        recent.set(text, hashed)
        return hashed
      }
      const addressKey = (address: string) => keyed(networkOf(address))
      const networkKeys = (address: string): ReadonlyArray<NetworkKey> =>
        networksOf(address).map(({ level, prefix }) => ({ level, key: keyed(prefix) }))
      return VoterIdentity.of({
        addressKey,
        networkKeys,
        caster: ({ address, agent }) => {
          const networks = networkKeys(address)
          const client = addressKey(address)
          // The neighbourhood: an IPv6 /48, an IPv4 /24 (the third level, or the second of IPv4's three).
          const neighbourhood = networks.find((n) => n.level === NEIGHBOURHOOD.v6 || n.level === NEIGHBOURHOOD.v4)?.key ?? client
          return { voter: agent !== undefined ? agentVoter(agent) : addressVoter(client), address: client, networks, neighbourhood }
        }
      })
    })
  )
