/** POST /vote: rate limit, voter identity, then one atomic cast in the ledger. */
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { toTrust, type VoteOutcome, VoteLedger } from "@productdir/domain"
import { Api } from "../Api.ts"
import { ApiConfig } from "../ApiConfig.ts"
import { withProblems } from "../http/domainProblems.ts"
import { PROBLEM_JSON } from "../http/problemResponses.ts"
import { RateLimiter } from "../RateLimiter.ts"
import { VoterIdentity } from "../VoterIdentity.ts"


export const VotesLive = HttpApiBuilder.group(Api, "votes", (handlers) =>
  Effect.gen(function*() {
    const ledger = yield* VoteLedger
    const limiter = yield* RateLimiter
    const identity = yield* VoterIdentity
    const config = yield* ApiConfig

    return handlers.handle("vote", ({ payload }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const addressHash = identity.addressHash(identity.clientAddress(request))
        const voter = identity.voterKey(payload.voter_id, addressHash)
        const decision = yield* limiter.take([
          { key: `voter:${voter}`, perMinute: config.votesPerVoter },
          { key: `address:${addressHash}`, perMinute: config.votesPerAddress }
        ])
        if (decision._tag === "Limited") {
          // A raw response: a problem body plus Retry-After and RateLimit-* headers.
          return HttpServerResponse.jsonUnsafe({
            type: "about:blank",
            title: "Too Many Requests",
            status: 429,
            detail: `Vote rate limit reached (${decision.limit} per minute). Retry after ${decision.retryAfterSeconds} s.`,
            retry_after: decision.retryAfterSeconds
          }, {
            status: 429,
            contentType: PROBLEM_JSON,
            headers: {
              "retry-after": String(decision.retryAfterSeconds),
              "ratelimit-limit": String(decision.limit),
              "ratelimit-remaining": "0",
              "ratelimit-reset": String(decision.retryAfterSeconds)
            }
          })
        }
        const result = yield* ledger.cast({
          entity: payload.entity_id,
          voter,
          direction: payload.direction ?? "up",
          reason: payload.reason
        })
        const outcome: VoteOutcome = {
          entity_id: result.product.id,
          direction: result.direction,
          status: result.status,
          trust: toTrust(result.counters)
        }
        const headers = decision.limit > 0
          ? {
            "ratelimit-limit": String(decision.limit),
            "ratelimit-remaining": String(decision.remaining),
            "ratelimit-reset": String(decision.resetSeconds)
          }
          : {}
        return HttpServerResponse.jsonUnsafe(outcome, { status: result.status === "recorded" ? 201 : 200, headers })
      }).pipe(withProblems))
  }))
