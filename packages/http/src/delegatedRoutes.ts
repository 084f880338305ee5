/**
 * Two routes of the HTTP contract that another part of the service answers: the A2A agent card (the A2A door
 * makes it) and the public port's /metrics (the app's, which sees every door's figures). The HTTP door serves
 * them as it serves every route, and the app says how (apps/api/src/server.ts): so no door imports another.
 */
import { Context, type Effect } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"

export class AgentCardRoute extends Context.Service<
  AgentCardRoute,
  {
    /** GET /.well-known/agent-card.json for the request at hand. */
    readonly serve: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>
  }
>()("@productdir/http/AgentCardRoute") {}

export class MetricsRoute extends Context.Service<
  MetricsRoute,
  {
    /** GET /metrics on the public port, for a request with these headers. */
    readonly serve: (headers: Readonly<Record<string, string | undefined>>) => Effect.Effect<HttpServerResponse.HttpServerResponse>
  }
>()("@productdir/http/MetricsRoute") {}
