/**
 * POST /vote: the caster is the request's Caller (the Authentication middleware
 * proved it or fell back to the client's address), then the Directory's vote,
 * with its rate-limit verdict as headers (and a 429 when over).
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api, Caller } from "@productdir/contract"
import { Directory } from "@productdir/usecases"
import { agentRevoked, readProblems } from "../domainProblems.ts"
import { rateLimitHeaders, tooManyRequests } from "@productdir/edge/problems/rateLimits"

export const VotesLive = HttpApiBuilder.group(Api, "votes", (handlers) =>
  Effect.gen(function* () {
    const directory = yield* Directory.Directory
    return handlers.handle("vote", ({ payload }) =>
      Effect.gen(function* () {
        const caller = yield* Caller
        const result = yield* directory.vote(payload, caller)
        if (result._tag === "Limited") return tooManyRequests("Vote", result.decision)
        const { decision, outcome } = result
        return HttpServerResponse.jsonUnsafe(outcome, {
          status: outcome.status === "recorded" ? 201 : 200,
          headers: rateLimitHeaders(decision)
        })
      }).pipe(Effect.catchTags({ ...readProblems, AgentRevoked: agentRevoked }))
    )
  })
)
