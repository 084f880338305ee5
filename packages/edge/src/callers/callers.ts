/**
 * Who sent a request, for the vote over HTTP and over MCP alike (docs/api.md,
 * "Voter identity"): the agent of its API key (`Authorization: Bearer`), else
 * the agent of its Web Bot Auth signature, else nobody proven, and the vote
 * counts for the client's address. A key or a signature that was sent and does
 * not prove an agent in good standing is refused with a 401; it never falls
 * back to an anonymous vote the sender did not mean to cast.
 *
 * A signature costs work a key does not: a key directory fetched from a URL the
 * client chose, a nonce kept until it expires. So a signed request draws one
 * vote from its client network's budget before any of that (Admission.admit):
 * over the budget it is a 429 and nothing is fetched or kept. A directory not in the cache is
 * fetched only within its networks' fetch budgets, nested (Admission.admitFetch): a /48 is one
 * site, however many addresses it sends from.
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { Caster, Decision, StoreError } from "@productdir/domain"
import { Admission, Agents, type EnrolmentLimited, VoterIdentity } from "@productdir/usecases"
import { ApiConfig } from "../ApiConfig.ts"
import { clientAddress, isLocalClient } from "../clients/clientAddress.ts"
import { problem, RETRY_AFTER_UNAVAILABLE } from "../problems/problemResponses.ts"
import { tooManyRequests } from "../problems/rateLimits.ts"
import { refusals } from "../refusals.ts"
import { SignedAgents, WEB_BOT_AUTH_TAG } from "./signatures.ts"

export class CallerRefused extends Schema.TaggedError<CallerRefused>()("CallerRefused", {
  detail: Schema.String,
  /** What was refused: a bearer key, or a signature. */
  proof: Schema.Literals(["bearer", "signature"])
}) {}

/**
 * A signed request over its client network's vote budget (refused before its signature is looked at),
 * or naming a key directory not in the cache when its networks have had their fetches.
 */
export class ClientLimited extends Schema.TaggedError<ClientLimited>()("ClientLimited", {
  limit: Schema.Number,
  windowSeconds: Schema.Number,
  retryAfterSeconds: Schema.Number,
  resetSeconds: Schema.Number,
  /** The bucket that was empty: the address's vote budget, or a network's fetches (`fetch:<level>:…`). */
  key: Schema.String
}) {}

export type IdentifyError = CallerRefused | ClientLimited | EnrolmentLimited | StoreError

export class Callers extends Context.Service<
  Callers,
  {
    readonly identify: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Caster, IdentifyError>
  }
>()("@productdir/edge/Callers") {}

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i

/** Text fit for a quoted header parameter: printable ASCII without quotes or backslashes (the detail may quote the client). */
const quotable = (text: string) => text.replace(/[^\x20-\x7e]|["\\]/g, "'")

/** The challenge of a 401: how to prove an identity here. */
const challenge = (refused: CallerRefused): Record<string, string> => ({
  "www-authenticate": `Bearer realm="productdir", error="invalid_token", error_description="${quotable(refused.detail)}"`,
  // RFC 9421 §5.1: what a signature must cover to be accepted.
  ...(refused.proof === "signature"
    ? { "accept-signature": `sig1=("@authority" "signature-agent";key="sig1" "content-digest");tag="${WEB_BOT_AUTH_TAG}";alg="ed25519"` }
    : {})
})

/** The answer to a refused proof: 401 problem with the challenge. */
export const unauthorized = (refused: CallerRefused) => problem(401, refused.detail, challenge(refused))

/** The answer when the store could not check a proof. */
export const proofUnavailable = () =>
  problem(503, "The directory could not check who you are: its store is unavailable. Retry shortly.", {
    "retry-after": String(RETRY_AFTER_UNAVAILABLE)
  })

export const layer = Layer.effect(
  Callers,
  Effect.gen(function* () {
    const agents = yield* Agents.Agents
    const identity = yield* VoterIdentity.VoterIdentity
    const signed = yield* SignedAgents
    const admission = yield* Admission.Admission
    const config = yield* ApiConfig

    const refused = (proof: "bearer" | "signature", detail: string) => Effect.fail(new CallerRefused({ proof, detail }))

    return Callers.of({
      identify: (request) =>
        Effect.gen(function* () {
          const address = clientAddress(request, config.trustProxy)
          const authorization = request.headers.authorization
          // Two proofs are one too many: which agent the vote is for would be ours to guess, and a signature sent
          // beside a key would go unchecked (a broken one too).
          if (authorization !== undefined && signed.isSigned(request.headers)) {
            return yield* refused(
              "signature",
              "The request carries both an API key (Authorization) and a Web Bot Auth signature: send one of them, so that it is plain whose vote it is."
            )
          }
          if (authorization !== undefined) {
            const token = BEARER.exec(authorization)?.[1]
            if (token === undefined) {
              return yield* refused("bearer", "Send the API key as Authorization: Bearer <api_key> (get one with POST /agents).")
            }
            const agent = yield* agents
              .authenticate(token)
              .pipe(
                Effect.catchTag("InvalidCredentials", (error) =>
                  refused("bearer", `${error.message}. Register with POST /agents for a new key, or vote without one.`)
                )
              )
            return identity.caster({ address, agent: agent.id })
          }
          if (signed.isSigned(request.headers)) {
            const caster = identity.caster({ address })
            const limited = (decision: Decision) =>
              decision._tag === "Limited"
                ? Effect.fail(
                    new ClientLimited({
                      limit: decision.limit,
                      windowSeconds: decision.windowSeconds,
                      retryAfterSeconds: decision.retryAfterSeconds,
                      resetSeconds: decision.resetSeconds,
                      key: decision.key
                    })
                  )
                : Effect.void
            yield* Effect.flatMap(admission.admit(caster.address), limited)
            const body = new Uint8Array(yield* Effect.orElseSucceed(request.arrayBuffer, () => new ArrayBuffer(0)))
            const signedIdentity = yield* signed
              .verify(
                { method: request.method, url: request.url, headers: request.headers, body },
                Effect.flatMap(admission.admitFetch(caster), limited)
              )
              .pipe(Effect.catchTag("SignatureRefused", (error) => refused("signature", `${error.message}.`)))
            const agent = yield* agents
              .signed(signedIdentity, address)
              .pipe(Effect.catchTag("InvalidCredentials", (error) => refused("signature", `${error.message}.`)))
            return { ...identity.caster({ address, agent: agent.id }), budgetDrawn: true }
          }
          // No proof: the client's address votes; on this machine, straight to it, without network budgets.
          return isLocalClient(request, config.trustProxy) ? { ...identity.caster({ address }), local: true } : identity.caster({ address })
        })
    })
  })
)

/** The 401, 429 or 503 a failed identification answers with. */
export const refusalResponse = (error: IdentifyError): HttpServerResponse.HttpServerResponse => {
  switch (error._tag) {
    case "CallerRefused":
      return unauthorized(error)
    case "ClientLimited":
      return tooManyRequests("Vote", {
        _tag: "Limited",
        limit: error.limit,
        windowSeconds: error.windowSeconds,
        retryAfterSeconds: error.retryAfterSeconds,
        resetSeconds: error.resetSeconds,
        key: error.key
      })
    case "EnrolmentLimited":
      return tooManyRequests(refusals.NEW_SIGNED_AGENT, {
        _tag: "Limited",
        limit: error.limit,
        windowSeconds: error.windowSeconds,
        retryAfterSeconds: error.retryAfterSeconds,
        resetSeconds: error.resetSeconds,
        key: error.key
      })
    case "StoreError":
      return proofUnavailable()
  }
}
