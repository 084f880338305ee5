/** Directory-wide reads: categories, the service index, llms.txt, health. */
import { Effect, Option } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api, ServiceUnavailable } from "@productdir/contract"
import { StoreHealth } from "@productdir/store-postgres"
import { Directory } from "@productdir/usecases"
import { serveCard } from "../a2a/served.ts"
import { CardSigner } from "../a2a/signing.ts"
import { llmsTxt, serviceIndex } from "../catalogGuide.ts"
import { ApiConfig } from "../ApiConfig.ts"
import { baseUrlOf } from "../mcp/links.ts"
import { cachedJson } from "../http/cachedJson.ts"
import { hostnameOf, isLoopbackHost, isLoopbackName } from "../http/hosts.ts"
import { storeUnavailable } from "../http/domainProblems.ts"
import { makeReadiness, readyResponse } from "../http/readiness.ts"
import { makeMetricsResponse, mayReadFigures } from "../observability/scrape.ts"

const NO_STORE = { "cache-control": "no-store" }

export const DirectoryLive = HttpApiBuilder.group(Api, "directory", (handlers) =>
  Effect.gen(function* () {
    const directory = yield* Directory.Directory
    const config = yield* ApiConfig
    const readiness = yield* makeReadiness
    const health = yield* Effect.serviceOption(StoreHealth)
    const signer = yield* CardSigner
    const metricsResponse = yield* makeMetricsResponse
    const index = serviceIndex()
    const guide = llmsTxt()

    return (
      handlers
        .handle("listCategories", () =>
          directory.categories.pipe(Effect.flatMap(cachedJson), Effect.catchTags({ StoreError: storeUnavailable }))
        )
        // Prepared once with its ETag and codings (http/constantReads.ts).
        .handle("index", () => Effect.succeed(index))
        .handle("llms", () => Effect.succeed(guide))
        // Absolute URLs (A2A asks for them): under PUBLIC_URL, else the origin the request came to; signed (a2a/signing.ts)
        // when that base is the directory's own; 1.0's card or 0.3's by the A2A-Version asked for (a2a/served.ts).
        .handle("agentCard", () =>
          Effect.gen(function* () {
            const request = yield* HttpServerRequest.HttpServerRequest
            // A loopback Host is the directory's own only on a server that listens on loopback alone: one on 0.0.0.0
            // is reached from elsewhere, where "localhost:8080" names the client's machine, not this one.
            const own =
              Option.isSome(config.publicUrl) || (isLoopbackHost(config.host) && isLoopbackName(hostnameOf(request.headers.host ?? "")))
            return yield* serveCard(own ? signer : undefined, baseUrlOf(config.publicUrl, Option.some(request)) ?? "")
          })
        )
        // Health answers describe this moment: never reused by a cache. Alive unless the embedded database has stopped
        // (an exchange that never ends): only a restart brings that back, and a liveness probe is what restarts.
        .handle("healthz", () =>
          Effect.suspend(() => {
            const stalled = Option.isSome(health) ? health.value.stalled() : undefined
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
        // may read the metrics here (http/readiness.ts).
        .handle("readyz", () =>
          Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
            Effect.map(readiness(mayReadFigures(config, request.headers)), readyResponse)
          )
        )
        // Open, behind METRICS_TOKEN, or on METRICS_PORT only (observability/scrape.ts).
        .handle("metrics", () =>
          Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) => metricsResponse(request.headers))
        )
    )
  })
)
