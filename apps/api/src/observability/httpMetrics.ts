/**
 * RED metrics of every request, after OpenTelemetry's HTTP server conventions in Prometheus' names:
 * `http_server_request_duration_seconds` (a histogram by `http_request_method`, `http_route` the
 * route's template and `http_response_status_code`), and `http_server_active_requests`.
 *
 * Recorded where the access log is written (http/frontDoor.ts), so the reads the cache answers at
 * the front door count like every other request, with the duration the log line has. What it adds
 * to a request: a walk of the route tree and a histogram update, no Effect, no allocation once a
 * series exists. Active requests are those Node handed the server and the log has not seen end.
 */
import { Context, Effect, Layer, Metric } from "effect"
import type { Server } from "node:http"
import { type AccessEntry, AccessLog } from "../http/accessLog.ts"
import { methodOf, routeOf } from "./routeTemplates.ts"

export const REQUEST_DURATION = "http_server_request_duration_seconds"
export const ACTIVE_REQUESTS = "http_server_active_requests"

/** OpenTelemetry's advice for HTTP durations, with finer steps below 5 ms, where the cache's reads are. */
export const DURATION_BOUNDARIES: ReadonlyArray<number> = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10
]

/** Metrics outside a fiber: the process's registry, Effect's default. */
const processMetrics = Context.empty()

/** The duration histogram's series by method, route and status: each made once. */
const makeRecorder = () => {
  const series = new Map<string, Metric.Histogram<number>>()
  return (entry: AccessEntry): void => {
    const method = methodOf(entry.method)
    const route = routeOf(entry.path)
    const key = `${method} ${entry.status} ${route}`
    let histogram = series.get(key)
    if (histogram === undefined) {
      histogram = Metric.histogram(REQUEST_DURATION, {
        description: "Duration of HTTP server requests, from the request's arrival to its response sent (or the client gone).",
        boundaries: DURATION_BOUNDARIES,
        attributes: { http_request_method: method, http_route: route, http_response_status_code: String(entry.status) }
      })
      series.set(key, histogram)
    }
    histogram.updateUnsafe(entry.durationMs / 1000, processMetrics)
  }
}

/**
 * The access log, each entry also counted in the RED metrics; and the requests `server` receives,
 * counted as active until their entry is written.
 */
export const layerAccessLog = (server: Server) =>
  Layer.effect(
    AccessLog,
    Effect.gen(function* () {
      const log = yield* AccessLog
      const record = makeRecorder()
      let received = 0
      let ended = 0
      const arrived = () => {
        received++
      }
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          // Before the front door's own listener, which may answer at once (a read the cache holds).
          server.prependListener("request", arrived)
          server.prependListener("checkExpectation", arrived)
          return Metric.registerUnsafe(
            Metric.gauge(ACTIVE_REQUESTS, { description: "HTTP requests received and not yet answered (or given up by their client)." }),
            processMetrics,
            { get: () => ({ value: Math.max(0, received - ended) }), update: () => {}, modify: () => {} }
          )
        }),
        (registration) =>
          Effect.sync(() => {
            server.off("request", arrived)
            server.off("checkExpectation", arrived)
            registration.remove()
          })
      )
      const observe = (entry: AccessEntry) => {
        ended++
        record(entry)
      }
      return AccessLog.of({
        recordNow: (entry) => {
          observe(entry)
          log.recordNow(entry)
        },
        record: (entry) =>
          Effect.andThen(
            Effect.sync(() => observe(entry)),
            log.record(entry)
          )
      })
    })
  )
