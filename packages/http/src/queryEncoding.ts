/**
 * A query string must be percent-encoded UTF-8. The router's parser turns bytes that are not UTF-8 into
 * U+FFFD, so `?q=%FF%FE` would otherwise reach a search as a replacement character and answer 200 with
 * nothing found: broken text is bad input (400), in the query as in a body or a path.
 *
 * Every wrong field is named at once, the broken ones beside the others: a read (GET, HEAD) goes on to its
 * route without the broken parameters, whose validation names them with the rest (BrokenQuery,
 * requestValidation.ts), and its answer is a 400 whatever the rest was. Any other method stops here.
 */
import { Context, Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { FieldIssue } from "@productdir/contract"
import { badFields } from "@productdir/edge/problems/problemResponses"

const decodes = (raw: string): boolean => {
  try {
    decodeURIComponent(raw.replace(/\+/g, " "))
    return true
  } catch {
    return false
  }
}

/** The broken parameters of the request, for the validation of the rest to name them too; `named` once it has. */
export interface BrokenParameters {
  readonly issues: ReadonlyArray<FieldIssue>
  named: boolean
}

export const BrokenQuery = Context.Reference<BrokenParameters>("@productdir/http/BrokenQuery", {
  defaultValue: () => ({ issues: [], named: false })
})

const pairsOf = (url: string): ReadonlyArray<string> => {
  const start = url.indexOf("?")
  return start < 0 ? [] : url.slice(start + 1).split("&")
}

const isBroken = (pair: string): boolean => {
  const equals = pair.indexOf("=")
  return !decodes(equals < 0 ? pair : pair.slice(0, equals)) || !decodes(equals < 0 ? "" : pair.slice(equals + 1))
}

/** The query parameters of `url` whose name or value is not percent-encoded UTF-8, as field issues. */
export const brokenQueryParameters = (url: string): Array<FieldIssue> =>
  pairsOf(url)
    .filter(isBroken)
    .map((pair) => {
      const equals = pair.indexOf("=")
      const name = equals < 0 ? pair : pair.slice(0, equals)
      const shown = decodes(name) ? decodeURIComponent(name.replace(/\+/g, " ")) : name
      return { path: ["query", shown], message: "is not UTF-8 once its percent-escapes are decoded" }
    })

/** `url` without its broken query parameters. */
const withoutBroken = (url: string): string => {
  const path = url.split("?")[0] ?? "/"
  const kept = pairsOf(url).filter((pair) => !isBroken(pair))
  return kept.length === 0 ? path : `${path}?${kept.join("&")}`
}

export const queryEncoding = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const issues = brokenQueryParameters(request.url)
    if (issues.length === 0) return yield* httpEffect
    if (request.method !== "GET" && request.method !== "HEAD") return badFields(issues)
    const broken: BrokenParameters = { issues, named: false }
    const answer = yield* httpEffect.pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, request.modify({ url: withoutBroken(request.url) })),
      Effect.provideService(BrokenQuery, broken)
    )
    // Named with the other wrong fields; else the rest was right, and the broken ones alone are the answer.
    return broken.named && answer.status === 400 ? answer : badFields(issues)
  })
