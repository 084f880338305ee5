/**
 * Rate-limit verdicts on the wire (docs/api.md, "Rate limits"): the RateLimit-*
 * headers on every answer a limit applies to, and a 429 problem with
 * Retry-After when a bucket is empty.
 */
import { HttpServerResponse } from "effect/http"
import type { Decision } from "@productdir/domain"
import { HTTP_DOOR, refusals } from "../refusals.ts"
import { PROBLEM_JSON } from "./problemResponses.ts"

/** RateLimit-* of an allowed request: none when no limit is on. */
export const rateLimitHeaders = (decision: Extract<Decision, { _tag: "Allowed" }>): Record<string, string> =>
  decision.limit > 0
    ? {
        "ratelimit-limit": String(decision.limit),
        "ratelimit-remaining": String(decision.remaining),
        "ratelimit-reset": String(decision.resetSeconds)
      }
    : {}

/** The 429 of a refused request; `what` names what is limited ("Vote", "Agent registration"). */
export const tooManyRequests = (what: string, decision: Extract<Decision, { _tag: "Limited" }>) => {
  const { limit, retryAfterSeconds, resetSeconds } = decision
  return HttpServerResponse.jsonUnsafe(
    {
      type: "about:blank",
      title: "Too Many Requests",
      status: 429,
      detail: refusals.RateLimited(what, decision, HTTP_DOOR),
      retry_after: retryAfterSeconds
    },
    {
      status: 429,
      contentType: PROBLEM_JSON,
      headers: {
        "retry-after": String(retryAfterSeconds),
        "ratelimit-limit": String(limit),
        "ratelimit-remaining": "0",
        // Until the bucket is full again, as on an allowed request; Retry-After says when one request may pass.
        "ratelimit-reset": String(resetSeconds)
      }
    }
  )
}
