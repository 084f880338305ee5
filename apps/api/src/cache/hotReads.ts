/**
 * Reads the read cache holds, answered at the front door (http/frontDoor.ts): a
 * GET of a canonical product read is a lookup and a write, and taking it through
 * the router and the middleware would cost most of its time. The front door has
 * already given it its request id, its log line and its connection policy;
 * anything the cache does not hold goes on to the application.
 */
import { Effect, Layer } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { ApiConfig } from "../ApiConfig.ts"
import { cacheControl } from "../http/cachedJson.ts"
import { FrontDoor } from "../http/frontDoor.ts"
import { answerFor } from "../http/prepared.ts"
import { ReadCache } from "./ReadCache.ts"
import { keyOfRequest } from "./readKeys.ts"

export const HotReadsLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const cache = yield* ReadCache
    const control = cacheControl((yield* ApiConfig).cacheMaxAge)

    const serve = (request: IncomingMessage, response: ServerResponse, headers: Readonly<Record<string, string>>): boolean => {
      if (request.method !== "GET" || request.url === undefined) return false
      const key = keyOfRequest(request.url)
      const prepared = key === undefined ? undefined : cache.peek(key)
      if (prepared === undefined) return false
      const answer = answerFor(prepared, request.headers, control, headers)
      if (answer.body !== undefined) answer.headers["content-length"] = String(answer.body.byteLength)
      response.writeHead(answer.status, answer.headers)
      response.end(answer.body)
      cache.recharge(key!)
      return true
    }

    yield* (yield* FrontDoor).install(serve)
  })
)
