/**
 * A query string must be percent-encoded UTF-8. The router's parser turns bytes that are not UTF-8 into
 * U+FFFD, so `?q=%FF%FE` would otherwise reach a search as a replacement character and answer 200 with
 * nothing found: broken text is bad input (400), in the query as in a body or a path.
 */
import { Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { FieldIssue } from "@productdir/contract"
import { badFields } from "./problemResponses.ts"

const decodes = (raw: string): boolean => {
  try {
    decodeURIComponent(raw.replace(/\+/g, " "))
    return true
  } catch {
    return false
  }
}

/** The query parameters of `url` whose name or value is not percent-encoded UTF-8, as field issues. */
export const brokenQueryParameters = (url: string): Array<FieldIssue> => {
  const start = url.indexOf("?")
  if (start < 0) return []
  return url
    .slice(start + 1)
    .split("&")
    .flatMap((pair) => {
      const equals = pair.indexOf("=")
      const name = equals < 0 ? pair : pair.slice(0, equals)
      const value = equals < 0 ? "" : pair.slice(equals + 1)
      if (decodes(name) && decodes(value)) return []
      const shown = decodes(name) ? decodeURIComponent(name.replace(/\+/g, " ")) : name
      return [{ path: ["query", shown], message: "is not UTF-8 once its percent-escapes are decoded" }]
    })
}

export const queryEncoding = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const errors = brokenQueryParameters(request.url)
    if (errors.length === 0) return yield* httpEffect
    return badFields(errors)
  })
