/**
 * The guarantee that every 4xx/5xx leaves as `application/problem+json`,
 * whichever layer produced it: our handlers, the HTTP API's own checks (415),
 * the body reader (413) or a defect (500, never with a stack trace).
 */
import { Cause, Effect } from "effect"
import { HttpServerError, HttpServerResponse } from "effect/http"
import { STATUS_CODES } from "node:http"
import { describeFieldErrors, type FieldIssue, distinctIssues, MAX_LISTED_ISSUES } from "@productdir/contract"

export const PROBLEM_JSON = "application/problem+json"

export const problem = (status: number, detail: string, headers: Readonly<Record<string, string>> = {}) => {
  // The response's own headers stay (Allow, Retry-After); its body's description goes.
  const { "content-length": _length, "content-type": _type, ...kept } = headers
  return HttpServerResponse.jsonUnsafe(
    { type: "about:blank", title: STATUS_CODES[status] ?? "Error", status, detail },
    { status, contentType: PROBLEM_JSON, headers: kept }
  )
}

/** A 400 naming every wrong field, as the API's own request validation answers (for requests no route decoded). */
export const badFields = (errors: ReadonlyArray<FieldIssue>) => {
  // A field can break more than one rule: the count is of fields.
  const wrong = new Set(errors.map((e) => e.path.join("\u0000"))).size
  const distinct = distinctIssues(errors)
  const count = wrong === 1 ? "1 field is" : `${wrong} fields are`
  return HttpServerResponse.jsonUnsafe(
    {
      type: "about:blank",
      title: STATUS_CODES[400],
      status: 400,
      detail: `${count} not right: ${describeFieldErrors(distinct)}.`,
      errors: distinct.slice(0, MAX_LISTED_ISSUES)
    },
    { status: 400, contentType: PROBLEM_JSON }
  )
}

/** The sentence a body over the size every door takes is refused with. */
export const TOO_LARGE =
  "The request body is over 16 KiB; what this API takes (a vote, a registration, an MCP or A2A message) is a small JSON object."

/** Seconds a client should wait after a 503: the store is usually back within seconds. */
export const RETRY_AFTER_UNAVAILABLE = 5

/** Every 503 says when to retry, whoever produced it. */
export const withRetryAfter = (response: HttpServerResponse.HttpServerResponse) =>
  response.status === 503 && response.headers["retry-after"] === undefined
    ? HttpServerResponse.setHeader(response, "retry-after", String(RETRY_AFTER_UNAVAILABLE))
    : response

const DETAILS: Record<number, string> = {
  415: "The request body must be JSON: send Content-Type: application/json."
}

/**
 * A bare error response (empty, or plain text) becomes a problem, keeping its headers; its text,
 * if any, becomes the detail. A JSON body is left as it is: it was written for that client (the
 * JSON-RPC errors of /mcp).
 */
export const ensureProblem = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.status < 400) return response
  const contentType = response.headers["content-type"] ?? ""
  if (contentType.startsWith(PROBLEM_JSON) || contentType.startsWith("application/json")) return response
  const text = response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : ""
  const detail = DETAILS[response.status] ?? (text.length > 0 ? text : (STATUS_CODES[response.status] ?? "Error"))
  return problem(response.status, detail, response.headers)
}

/** Whether a failure is the body reader's refusal of a body over its size limit. */
export const isBodyTooLarge = (error: unknown): boolean => {
  const reason = HttpServerError.isHttpServerError(error) ? error.reason : undefined
  // The Node body reader reports its size limit only in the message of its cause.
  return reason?._tag === "RequestParseError" && (reason.reason === "BodyTooLarge" || String(reason.cause).includes("maxBytes"))
}

/** Failures that escaped the API (the router, the body reader, defects) as problem responses. */
export const failureToProblem = (cause: Cause.Cause<unknown>, unrouted: () => HttpServerResponse.HttpServerResponse) => {
  // Body-reader failures surface as defects from inside the API's payload decoding: look at either.
  const error = Cause.squash(cause)
  const reason = HttpServerError.isHttpServerError(error) ? error.reason : undefined
  if (reason?._tag === "RouteNotFound") return Effect.succeed(unrouted())
  if (reason?._tag === "RequestParseError") {
    return Effect.succeed(isBodyTooLarge(error) ? problem(413, TOO_LARGE) : problem(400, "The request body could not be read."))
  }
  return Effect.logError("unhandled failure", cause).pipe(Effect.as(problem(500, "Something failed on our side; it has been logged.")))
}
