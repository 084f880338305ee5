/**
 * The guarantee that every 4xx/5xx leaves as `application/problem+json`,
 * whichever layer produced it: our handlers, the HTTP API's own checks (415),
 * the body reader (413) or a defect (500, never with a stack trace).
 */
import { Cause, Effect } from "effect"
import { HttpServerError, HttpServerResponse } from "effect/http"
import { STATUS_CODES } from "node:http"
import { MAX_BODY } from "./bodyLimit.ts"

export const PROBLEM_JSON = "application/problem+json"

export const problem = (status: number, detail: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.jsonUnsafe(
    { type: "about:blank", title: STATUS_CODES[status] ?? "Error", status, detail },
    { status, contentType: PROBLEM_JSON, headers }
  )

export const payloadTooLarge = () =>
  problem(413, `The request body is over ${Number(MAX_BODY) / 1024} KiB; a vote body is a small JSON object.`)

const DETAILS: Record<number, string> = {
  415: "The request body must be JSON: send Content-Type: application/json."
}

/** A non-problem error response becomes a problem; its text, if any, becomes the detail. */
export const ensureProblem = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.status < 400) return response
  const contentType = response.headers["content-type"] ?? ""
  if (contentType.startsWith(PROBLEM_JSON)) return response
  const text = response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : ""
  const detail = DETAILS[response.status] ?? (text.length > 0 && !contentType.includes("json") ? text : STATUS_CODES[response.status] ?? "Error")
  return problem(response.status, detail)
}

/** Failures that escaped the API (the router, the body reader, defects) as problem responses. */
export const failureToProblem = (cause: Cause.Cause<unknown>, unrouted: () => HttpServerResponse.HttpServerResponse) => {
  // Body-reader failures surface as defects from inside the API's payload decoding: look at either.
  const error = Cause.squash(cause)
  const reason = HttpServerError.isHttpServerError(error) ? error.reason : undefined
  if (reason?._tag === "RouteNotFound") return Effect.succeed(unrouted())
  if (reason?._tag === "RequestParseError") {
    // The Node body reader reports its size limit only in the message of its cause.
    return Effect.succeed(
      reason.reason === "BodyTooLarge" || String(reason.cause).includes("maxBytes")
        ? payloadTooLarge()
        : problem(400, "The request body could not be read.")
    )
  }
  return Effect.logError("unhandled failure", cause).pipe(
    Effect.as(problem(500, "Something failed on our side; it has been logged."))
  )
}
