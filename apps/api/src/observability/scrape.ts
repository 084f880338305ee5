/**
 * GET /metrics: this process's figures in the Prometheus text format (0.0.4). The read cache's and
 * the process's memory (packages/read-cache/src/metrics.ts), the event loop's delay and V8's pauses (runtimeMetrics.ts), then every metric in effect's registry
 * (PrometheusMetrics): the request metrics (httpMetrics.ts), votes, MCP, the database and the
 * change feed, the last read just now.
 *
 * Who may read it: anyone by default; with METRICS_TOKEN, a request with `Authorization: Bearer
 * <token>` (else 401); with METRICS_PORT, only a listener on 127.0.0.1 at that port serves it, and
 * the public port answers 404 (the listener asks for the token too when both are set).
 *
 * The same rule decides who is told which database servers /readyz reaches (packages/http/src/readiness.ts):
 * the loopback listener serves GET /readyz too, with them.
 */
import { Data, Effect, Layer, Metric, Option } from "effect"
import { FairShare, type FairShareStats } from "@productdir/edge/clients/fairShare"
import { BatchSlots } from "@productdir/mcp/batchSlots"
import { HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { createServer } from "node:http"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { prometheusText } from "@productdir/read-cache/metrics"
import { ReadCache } from "@productdir/read-cache/ReadCache"
import { writeProblem } from "@productdir/http/requestListener"
import { problem, RETRY_AFTER_UNAVAILABLE } from "@productdir/edge/problems/problemResponses"
import { CHALLENGE, refusalOf } from "@productdir/http/operatorFigures"
import { makeReadiness } from "@productdir/http/readiness"
import { RuntimeMetrics } from "./runtimeMetrics.ts"
import { refreshDatabaseGauges, refreshFeedLag } from "./storeMetrics.ts"

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
const NO_STORE = { "cache-control": "no-store" }

const WORK_RUNNING = Metric.gauge("productdir_http_work_running", {
  description: "Requests the application works on now, each under one of HTTP_CONCURRENCY's permits."
})
const WORK_WAITING = Metric.gauge("productdir_http_work_waiting", {
  description: "Requests waiting for their turn of the process's work (taken in turn by client network)."
})

const BATCHES_RUNNING = Metric.gauge("productdir_mcp_batches_running", {
  description: "MCP batches being answered now, each in one of the process's batch slots (one per client network)."
})
const BATCHES_WAITING = Metric.gauge("productdir_mcp_batches_waiting", {
  description: "MCP batches waiting for a slot (taken in turn by client network)."
})

const refreshWorkGauges = (work: FairShareStats, batches: FairShareStats) =>
  Effect.all([
    Metric.update(WORK_RUNNING, work.running),
    Metric.update(WORK_WAITING, work.waiting),
    Metric.update(BATCHES_RUNNING, batches.running),
    Metric.update(BATCHES_WAITING, batches.waiting)
  ])

/** The body of a scrape. */
export const makeScrape = Effect.gen(function* () {
  const cache = yield* ReadCache
  const runtime = yield* RuntimeMetrics
  const share = yield* FairShare
  const slots = yield* BatchSlots
  const context = yield* Effect.context<never>()
  return Effect.gen(function* () {
    yield* refreshDatabaseGauges
    yield* refreshFeedLag
    yield* refreshWorkGauges(share.stats(), slots.stats())
    return prometheusText(cache.stats()) + runtime.scrape() + PrometheusMetrics.formatUnsafe(context)
  }).pipe(Effect.provideContext(context))
})

/** The public port's GET /metrics, made where the store's services are at hand (the handler's layer). */
export const makeMetricsResponse = Effect.gen(function* () {
  const config = yield* ApiConfig
  const scrape = yield* makeScrape
  return (headers: Readonly<Record<string, string | undefined>>) => {
    if (Option.isSome(config.metricsPort))
      return Effect.succeed(problem(404, "The metrics are served on their own port (METRICS_PORT), on this host's loopback only."))
    const refused = refusalOf(config.metricsToken, headers)
    if (refused !== undefined) return Effect.succeed(problem(401, refused, CHALLENGE))
    return Effect.map(scrape, (body) => HttpServerResponse.text(body, { contentType: CONTENT_TYPE, headers: NO_STORE }))
  }
})

export class MetricsPortUnavailable extends Data.TaggedError("MetricsPortUnavailable")<{ readonly port: number; readonly cause: Error }> {
  override get message() {
    return `METRICS_PORT ${this.port}: the metrics listener could not start (${this.cause.message})`
  }
}

/** With METRICS_PORT: a listener on 127.0.0.1 serving GET /metrics alone, for the scope's life. */
export const MetricsListenerLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* ApiConfig
    if (Option.isNone(config.metricsPort)) return
    const port = config.metricsPort.value
    const scrape = yield* makeScrape
    const run = Effect.runPromiseWith(yield* Effect.context<never>())
    const readiness = yield* makeReadiness
    const server = createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0]
      if (path !== "/metrics" && path !== "/readyz")
        return writeProblem(response, 404, "Only /metrics and /readyz are served on this port.")
      if (request.method !== "GET" && request.method !== "HEAD")
        return writeProblem(response, 405, `${request.method} is not served here: GET ${path}.`, { allow: "GET, HEAD" })
      const refused = refusalOf(config.metricsToken, request.headers)
      if (refused !== undefined) return writeProblem(response, 401, refused, CHALLENGE)
      const send = (status: number, contentType: string, body: string) => {
        response.writeHead(status, { "content-type": contentType, "content-length": String(Buffer.byteLength(body)), ...NO_STORE })
        response.end(request.method === "HEAD" ? undefined : body)
      }
      if (path === "/readyz")
        return run(Effect.result(readiness(true))).then(
          (ready) =>
            ready._tag === "Success"
              ? send(200, "application/json", JSON.stringify(ready.success))
              : writeProblem(response, 503, ready.failure.detail, { "retry-after": String(RETRY_AFTER_UNAVAILABLE) }),
          () => writeProblem(response, 500, "The readiness could not be read.")
        )
      run(scrape).then(
        (body) => send(200, CONTENT_TYPE, body),
        () => writeProblem(response, 500, "The metrics could not be read; the failure has been logged.")
      )
    })
    yield* Effect.acquireRelease(
      Effect.callback<void, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen(port, "127.0.0.1", () => resume(Effect.void))
      }).pipe(Effect.mapError((cause) => new MetricsPortUnavailable({ port, cause }))),
      () =>
        Effect.callback<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    const bound = server.address()
    const actual = typeof bound === "object" && bound !== null ? bound.port : port
    yield* Effect.logInfo(`metrics on http://127.0.0.1:${actual}/metrics`)
  })
)
