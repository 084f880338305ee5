/**
 * JSON reads with validators: the ETag is a hash of the exact bytes sent,
 * so it changes with content and counters, and `If-None-Match` gives 304.
 */
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"
import { ApiConfig } from "../ApiConfig.ts"

export const etagOf = (body: string): string => `"${createHash("sha1").update(body).digest("base64url")}"`

/** RFC 9110 weak comparison over a list of entity tags (or `*`). */
export const ifNoneMatchHits = (header: string | undefined, etag: string): boolean => {
  if (header === undefined) return false
  const bare = etag.replace(/^W\//, "")
  return header.split(",").some((tag) => {
    const t = tag.trim()
    return t === "*" || t.replace(/^W\//, "") === bare
  })
}

export const cachedJson = Effect.fn("http.cachedJson")(function*(body: unknown) {
  const config = yield* ApiConfig
  const request = yield* HttpServerRequest.HttpServerRequest
  const text = JSON.stringify(body)
  const etag = etagOf(text)
  const headers = { etag, "cache-control": `public, max-age=${config.cacheMaxAge}` }
  if (ifNoneMatchHits(request.headers["if-none-match"], etag)) {
    return HttpServerResponse.empty({ status: 304, headers })
  }
  return HttpServerResponse.text(text, { contentType: "application/json", headers })
})
