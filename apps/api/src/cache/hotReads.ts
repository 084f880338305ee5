/**
 * The hot path (http/hotPath.ts) for the read cache: a GET of a canonical
 * product read the cache holds is answered from Node's request event, with
 * what every response carries (its request id, its access log line). Anything
 * else, and everything while the server drains, goes through the API as usual.
 */
import { Effect, Layer } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { randomUUID } from "node:crypto"
import { ApiConfig } from "../ApiConfig.ts"
import { AccessLog } from "../http/accessLog.ts"
import { cacheControl } from "../http/cachedJson.ts"
import { HotPath } from "../http/hotPath.ts"
import { Lifecycle } from "../http/lifecycle.ts"
import { answerFor } from "../http/prepared.ts"
import { isSaneRequestId } from "../http/requestLog.ts"
import { ReadCache } from "./ReadCache.ts"
import { keyOfRequest } from "./readKeys.ts"

export const HotReadsLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const cache = yield* ReadCache
    const lifecycle = yield* Lifecycle
    const accessLog = yield* AccessLog
    const control = cacheControl((yield* ApiConfig).cacheMaxAge)

    const serve = (request: IncomingMessage, response: ServerResponse): boolean => {
      if (request.method !== "GET" || request.url === undefined || lifecycle.isDraining()) return false
      const key = keyOfRequest(request.url)
      const prepared = key === undefined ? undefined : cache.peek(key)
      if (prepared === undefined) return false
      const started = performance.now()
      const incoming = request.headers["x-request-id"]
      const requestId = typeof incoming === "string" && isSaneRequestId(incoming) ? incoming : randomUUID()
      const answer = answerFor(prepared, request.headers, control, { "x-request-id": requestId })
      if (answer.body !== undefined) answer.headers["content-length"] = String(answer.body.byteLength)
      response.writeHead(answer.status, answer.headers)
      response.end(answer.body)
      cache.recharge(key!)
      accessLog.recordNow({
        method: "GET",
        path: request.url.split("?")[0]!,
        status: answer.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        requestId
      })
      return true
    }

    yield* (yield* HotPath).install(serve)
  })
)
