/** POST /agents: a new agent and its API key, limited per client network and day. */
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { AgentCredentials } from "@productdir/domain"
import { Api } from "@productdir/contract"
import { Agents } from "@productdir/usecases"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { clientAddress, isLocalClient } from "@productdir/edge/clients/clientAddress"
import { storeUnavailable } from "../domainProblems.ts"
import { rateLimitHeaders, tooManyRequests } from "@productdir/edge/problems/rateLimits"

export const AgentsLive = HttpApiBuilder.group(Api, "agents", (handlers) =>
  Effect.gen(function* () {
    const agents = yield* Agents.Agents
    const config = yield* ApiConfig
    return handlers.handle("registerAgent", ({ payload }) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const result = yield* agents.register(payload, clientAddress(request, config.trustProxy), isLocalClient(request, config.trustProxy))
        if (result._tag === "Limited") return tooManyRequests("Agent registration", result.decision)
        const { agent, apiKey, decision } = result
        const body: AgentCredentials = {
          agent_id: agent.id,
          name: agent.name,
          contact: agent.contact,
          api_key: apiKey,
          usage: "Send Authorization: Bearer <api_key> with POST /vote and with /mcp requests. The key is not shown again.",
          created_at: agent.createdAt.toISOString()
        }
        // The key is a secret: no cache may keep the response.
        return HttpServerResponse.jsonUnsafe(body, {
          status: 201,
          headers: { ...rateLimitHeaders(decision), "cache-control": "no-store" }
        })
      }).pipe(Effect.catchTags({ StoreError: storeUnavailable }))
    )
  })
)
