/**
 * Who is voting: the `voter_id` a client sends, else a keyed hash of the
 * client address. Only the hash is ever stored; the key is VOTER_SECRET, or
 * a random one generated once and kept in the store.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { Settings } from "@productdir/domain"
import { createHmac, randomBytes } from "node:crypto"
import { ApiConfig } from "./ApiConfig.ts"

export class VoterIdentity extends Context.Service<VoterIdentity, {
  /** The client's address: the socket's, or the first X-Forwarded-For hop when TRUST_PROXY is set. */
  readonly clientAddress: (request: HttpServerRequest.HttpServerRequest) => string
  /** HMAC-SHA256 of an address under the server secret: the stored form. */
  readonly addressHash: (address: string) => string
  /** The ledger's voter key: ids and address hashes live in separate namespaces. */
  readonly voterKey: (voterId: string | undefined, addressHash: string) => string
}>()("@productdir/api/VoterIdentity") {}

export const layer = Layer.effect(VoterIdentity, Effect.gen(function*() {
  const config = yield* ApiConfig
  const settings = yield* Settings
  const secret = Option.isSome(config.voterSecret)
    ? Redacted.value(config.voterSecret.value)
    : yield* settings.getOrInit("voter_secret", randomBytes(32).toString("hex"))
  return VoterIdentity.of({
    clientAddress: (request) => {
      if (config.trustProxy) {
        const forwarded = request.headers["x-forwarded-for"]?.split(",")[0]?.trim()
        if (forwarded) return forwarded
      }
      return Option.getOrElse(request.remoteAddress, () => "unknown")
    },
    addressHash: (address) => createHmac("sha256", secret).update(address).digest("hex").slice(0, 32),
    voterKey: (voterId, addressHash) => (voterId !== undefined ? `id:${voterId}` : `ip:${addressHash}`)
  })
}))
