/** POST /vote: the Directory's vote, with its rate-limit verdict as headers (and a 429 when over). */
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { Directory } from "../Directory.ts"
import { withProblems } from "../http/domainProblems.ts"
import { PROBLEM_JSON } from "../http/problemResponses.ts"

export const VotesLive = HttpApiBuilder.group(Api, "votes", (handlers) =>
  Effect.gen(function*() {
    const directory = yield* Directory
    return handlers.handle("vote", ({ payload }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const result = yield* directory.vote(payload, request)
        if (result._tag === "Limited") {
          const { limit, retryAfterSeconds } = result.decision
          // A raw response: a problem body plus Retry-After and RateLimit-* headers.
          return HttpServerResponse.jsonUnsafe({
            type: "about:blank",
            title: "Too Many Requests",
            status: 429,
            detail: `Vote rate limit reached (${limit} per minute). Retry after ${retryAfterSeconds} s.`,
            retry_after: retryAfterSeconds
          }, {
            status: 429,
            contentType: PROBLEM_JSON,
            headers: {
              "retry-after": String(retryAfterSeconds),
              "ratelimit-limit": String(limit),
              "ratelimit-remaining": "0",
              "ratelimit-reset": String(retryAfterSeconds)
            }
          })
        }
        const { decision, outcome } = result
        const headers = decision.limit > 0
          ? {
            "ratelimit-limit": String(decision.limit),
            "ratelimit-remaining": String(decision.remaining),
            "ratelimit-reset": String(decision.resetSeconds)
          }
          : {}
        return HttpServerResponse.jsonUnsafe(outcome, { status: outcome.status === "recorded" ? 201 : 200, headers })
      }).pipe(withProblems))
  }))
