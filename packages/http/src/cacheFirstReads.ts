/**
 * Reads the read cache holds, answered at the front door (requestListener.ts): a
 * GET of a canonical product read is a lookup and a write, and taking it through
 * the router and the middleware would cost most of its time. The front door has
 * already given it its request id, its log line and its connection policy;
 * anything the cache does not hold goes on to the application.
 *
 * The answer is the one `answerFor` (packages/edge/src/responses/preparedResponse.ts) gives the application's
 * handlers, header for header and in the same order, written here as one flat
 * list for `writeHead`: no header object to spread, copy and walk on a path
 * that runs for most requests.
 */
import { Effect, Layer } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { cacheControl } from "@productdir/edge/responses/cachedJson"
import { RequestListener } from "./requestListener.ts"
import { ifNoneMatchHits, negotiate, type Prepared, tagFor } from "@productdir/edge/responses/preparedResponse"
import { ReadCache } from "@productdir/read-cache/ReadCache"
import { readOfRequest } from "@productdir/read-cache/readKeys"

/** Whether `If-None-Match` names the content of `prepared`, in any of its codings. */
const notModified = (match: string | string[] | undefined, prepared: Prepared): boolean =>
  typeof match === "string" && ifNoneMatchHits(match, [prepared.etag, tagFor(prepared.etag, "gzip"), tagFor(prepared.etag, "br")])

export const CacheFirstReadsLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const cache = yield* ReadCache
    const control = cacheControl((yield* ApiConfig).cacheMaxAge)

    const serve = (request: IncomingMessage, response: ServerResponse, requestId: string, closing: boolean): string | undefined => {
      if (request.method !== "GET" || request.url === undefined) return undefined
      const read = readOfRequest(request.url)
      if (read === undefined) return undefined
      const { key, route } = read
      const prepared = cache.peek(key)
      if (prepared === undefined) return undefined
      const headers = request.headers
      const accept = headers["accept-encoding"]
      const coding = negotiate(typeof accept === "string" ? accept : undefined, prepared)
      const head: Array<string> = closing
        ? ["x-request-id", requestId, "connection", "close", "etag", tagFor(prepared.etag, coding), "cache-control", control]
        : ["x-request-id", requestId, "etag", tagFor(prepared.etag, coding), "cache-control", control]
      if (prepared.compressible) head.push("vary", "Accept-Encoding")
      if (notModified(headers["if-none-match"], prepared)) {
        response.writeHead(304, head)
        response.end()
        return route
      }
      head.push("content-type", prepared.contentType)
      let body = prepared.identity
      if (coding !== "identity") {
        head.push("content-encoding", coding)
        body = prepared.encoded(coding)
        // A coding made just now for this entry: its bytes count in the cache's budget.
        cache.recharge(key)
      }
      head.push("content-length", String(body.byteLength))
      response.writeHead(200, head)
      response.end(body)
      return route
    }

    yield* (yield* RequestListener).install(serve)
  })
)
