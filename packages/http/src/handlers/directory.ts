/** Directory-wide reads: categories, the service index, llms.txt, health. */
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api, ServiceUnavailable } from "@productdir/contract"
import { Directory } from "@productdir/usecases"
import { llmsTxt, serviceIndex } from "@productdir/edge/catalogGuide"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { cachedJson } from "@productdir/edge/responses/cachedJson"
import { storeUnavailable } from "../domainProblems.ts"
import { StoreStatus } from "@productdir/edge/storeStatus"
import { AgentCardRoute, MetricsRoute } from "../delegatedRoutes.ts"
import { mayReadFigures } from "../operatorFigures.ts"
import { makeReadiness, readyResponse } from "../readiness.ts"

const NO_STORE = { "cache-control": "no-store" }

export const DirectoryLive = HttpApiBuilder.group(Api, "directory", (handlers) =>
  Effect.gen(function* () {
    const directory = yield* Directory.Directory
    const config = yield* ApiConfig
    const readiness = yield* makeReadiness
    const store = yield* StoreStatus
    const agentCard = yield* AgentCardRoute
    const metrics = yield* MetricsRoute
    const index = serviceIndex()
    const guide = llmsTxt()

    return (
      handlers
        .handle("listCategories", () =>
          directory.categories.pipe(Effect.flatMap(cachedJson), Effect.catchTags({ StoreError: storeUnavailable }))
        )
        // Prepared once with its ETag and codings (constantReads.ts).
        .handle("index", () => Effect.succeed(index))
        .handle("llms", () => Effect.succeed(guide))
        // 1.0's card or 0.3's by the A2A-Version asked for, signed when served under the directory's own URL
        // (@productdir/a2a, packages/a2a/src/cardRoute.ts).
        .handle("agentCard", () => agentCard.serve)
        // Health answers describe this moment: never reused by a cache. Alive unless the embedded database has stopped
        // (an exchange that never ends): only a restart brings that back, and a liveness probe is what restarts.
        .handle("healthz", () =>
          Effect.suspend(() => {
            const stalled = store.stalled()
            return stalled === undefined
              ? Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ok" }, { headers: NO_STORE }))
              : Effect.fail(
                  new ServiceUnavailable({
                    detail: `The embedded database has been on one statement for ${Math.round(stalled / 1000)} s and does not answer: restart the process.`
                  })
                )
          })
        )
        // Not ready once the server drains; ready while the primary answers, listing the servers reached to whoever
        // may read the metrics here (readiness.ts).
        .handle("readyz", () =>
          Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
            Effect.map(readiness(mayReadFigures(config, request.headers)), readyResponse)
          )
        )
        // Open, behind METRICS_TOKEN, or on METRICS_PORT only (the app's, apps/api/src/observability/scrape.ts).
        .handle("metrics", () =>
          Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) => metrics.serve(request.headers))
        )
    )
  })
)
