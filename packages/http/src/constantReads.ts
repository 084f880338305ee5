/**
 * The reads whose body never changes while the process runs (the index, llms.txt,
 * the OpenAPI document, the docs page): the first response of each is prepared in
 * every coding with the best compression (slow, but paid once for the life of
 * the process), and every later request is served from those bytes, with its
 * ETag and Cache-Control.
 */
import { Deferred, Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { cacheControl } from "@productdir/edge/responses/cachedJson"
import { type Prepared, prepareBest, send } from "@productdir/edge/responses/preparedResponse"

export const CONSTANT_READS: ReadonlySet<string> = new Set(["/", "/llms.txt", "/openapi.json", "/docs"])

/**
 * A text type says its charset: llms.txt and the docs page hold "≤", "é", "Zürich", and a client told
 * only `text/markdown` (RFC 7763 makes charset required) or `text/html` may read them as Latin-1.
 * JSON is UTF-8 by definition (RFC 8259) and says nothing.
 */
export const withCharset = (contentType: string): string =>
  contentType.startsWith("text/") && !/;\s*charset=/i.test(contentType) ? `${contentType}; charset=utf-8` : contentType

/** Middleware: serves the constant reads from their prepared bytes; everything else passes. */
export const constantReads = () => {
  const prepared = new Map<string, Deferred.Deferred<Prepared>>()
  return <E, R>(
    httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest | ApiConfig> =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = request.url.split("?")[0] ?? "/"
      if ((request.method !== "GET" && request.method !== "HEAD") || !CONSTANT_READS.has(path)) return yield* httpEffect
      const config = yield* ApiConfig
      const known = prepared.get(path)
      if (known !== undefined) return send(yield* Deferred.await(known), request, cacheControl(config.cacheMaxAge))
      // The first request of a path makes it; requests meanwhile wait for the same bytes.
      const deferred = Deferred.makeUnsafe<Prepared>()
      prepared.set(path, deferred)
      const response = yield* httpEffect.pipe(Effect.onError(() => Effect.sync(() => prepared.delete(path))))
      if (response.status !== 200 || response.body._tag !== "Uint8Array") {
        prepared.delete(path)
        return response
      }
      const ready = yield* prepareBest(response.body.body, withCharset(response.headers["content-type"] ?? response.body.contentType))
      yield* Deferred.succeed(deferred, ready)
      return send(ready, request, cacheControl(config.cacheMaxAge))
    })
}
