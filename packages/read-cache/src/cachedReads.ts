/**
 * The product reads as their handlers serve them: from the read cache
 * (ReadCache.ts), which loads a read it does not hold. A read the cache holds
 * usually never reaches an HTTP handler: packages/http/src/cacheFirstReads.ts answers it first. The MCP
 * tools and resources read the same entries, as documents.
 */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { cacheControl } from "@productdir/edge/responses/cachedJson"
import { send } from "@productdir/edge/responses/preparedResponse"
import { ReadCache } from "./ReadCache.ts"
import { type ReadKind, readKey } from "./readKeys.ts"

/** A product read by its handler: the cached or freshly loaded response, negotiated for this request. */
export const makeCachedRead = Effect.gen(function* () {
  const cache = yield* ReadCache
  const control = cacheControl((yield* ApiConfig).cacheMaxAge)
  return (kind: ReadKind, ref: string) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const response = send(yield* cache.read(kind, ref), request, control)
      cache.recharge(readKey(kind, ref))
      return response
    })
})

const decoder = new TextDecoder()

/** A product read as the JSON document its prepared bytes hold: what an MCP tool or resource answers. */
export const makeCachedDocument = Effect.gen(function* () {
  const cache = yield* ReadCache
  return (kind: ReadKind, ref: string) =>
    Effect.map(cache.read(kind, ref), (prepared): unknown => JSON.parse(decoder.decode(prepared.identity)))
})
