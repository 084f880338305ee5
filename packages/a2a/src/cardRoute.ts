/**
 * GET /.well-known/agent-card.json: the card of the A2A version the request
 * asks for (card.ts): 1.0's to `A2A-Version: 1.0`, 0.3's to a request without
 * the header, which A2A reads as 0.3 and which is how 0.3 clients ask. Both
 * signed (for the directory's own base URL); `Vary: A2A-Version` keeps shared caches from giving one to the other.
 */
import { Effect, Option } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { hostnameOf, isLoopbackHost, isLoopbackName } from "@productdir/edge/clients/hosts"
import { baseUrlOf } from "@productdir/edge/links"
import { cachedJson } from "@productdir/edge/responses/cachedJson"
import { cardFor } from "./card.ts"
import { requestedVersion } from "./protocol.ts"
import { CardSigner } from "./signing.ts"

/**
 * The card for `base`, signed when `base` is the directory's own (`signer` given): PUBLIC_URL, or a loopback
 * host. Without PUBLIC_URL the base is the request's Host, which any client may set: signing it would let
 * anyone have the directory vouch for a card whose interfaces are theirs, so that card goes unsigned
 * (signatures are optional in A2A) and PUBLIC_URL is how an operator gets it signed.
 */
const serveCard = (signer: CardSigner["Service"] | undefined, base: string) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const unsigned = cardFor(base, requestedVersion(request.headers, request.url))
    const card = signer === undefined ? unsigned : yield* signer.sign(unsigned, base)
    const response = yield* cachedJson(card)
    const vary = response.headers.vary
    return HttpServerResponse.setHeader(response, "vary", vary === undefined || vary === "" ? "A2A-Version" : `${vary}, A2A-Version`)
  })

/**
 * The card for the request at hand: absolute URLs (A2A asks for them) under PUBLIC_URL, else the origin the request
 * came to; signed when that base is the directory's own.
 */
export const makeCardRoute = Effect.gen(function* () {
  const config = yield* ApiConfig
  const signer = yield* CardSigner
  return Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    // A loopback Host is the directory's own only on a server that listens on loopback alone: one on 0.0.0.0
    // is reached from elsewhere, where "localhost:8080" names the client's machine, not this one.
    const own = Option.isSome(config.publicUrl) || (isLoopbackHost(config.host) && isLoopbackName(hostnameOf(request.headers.host ?? "")))
    return yield* serveCard(own ? signer : undefined, baseUrlOf(config.publicUrl, Option.some(request)) ?? "")
  }).pipe(Effect.provideService(ApiConfig, config))
})
