/**
 * JSON reads with validators and content codings: the body serialised once,
 * prepared in every coding (preparedResponse.ts), sent with a strong ETag per coding;
 * `If-None-Match` with a current tag gives 304.
 */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { ApiConfig } from "../ApiConfig.ts"
import { prepareFast, send } from "./preparedResponse.ts"

const encoder = new TextEncoder()

export const cacheControl = (maxAge: number) => `public, max-age=${maxAge}`

export const cachedJson = Effect.fn("http.cachedJson")(function* (body: unknown) {
  const config = yield* ApiConfig
  const request = yield* HttpServerRequest.HttpServerRequest
  return send(prepareFast(encoder.encode(JSON.stringify(body)), "application/json"), request, cacheControl(config.cacheMaxAge))
})
