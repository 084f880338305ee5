/**
 * RED metrics of every request, after OpenTelemetry's HTTP server conventions in Prometheus' names:
 * `http_server_request_duration_seconds` (a histogram by `http_request_method`, `http_route` the
 * route's template and `http_response_status_code`), and `http_server_active_requests`.
 *
 * Recorded where the access log is written (packages/http/src/requestListener.ts), so the reads the cache answers at
 * the front door count like every other request, with the duration the log line has. What it adds
 * to a request: a walk of the route tree and a histogram update, no Effect, no allocation once a
 * series exists. Active requests are those the front door received and the log has not seen end.
 */
import { Context, Effect, Layer, Metric } from "effect"
import { type AccessEntry, AccessLog } from "@productdir/http/accessLog"
import { methodOf, routeOf } from "./routeTemplates.ts"

export const REQUEST_DURATION = "http_server_request_duration_seconds"
export const ACTIVE_REQUESTS = "http_server_active_requests"

/** OpenTelemetry's advice for HTTP durations, with finer steps below 5 ms, where the cache's reads are. */
export const DURATION_BOUNDARIES: ReadonlyArray<number> = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10
]

/** Metrics outside a fiber: the process's registry, Effect's default. */
const processMetrics = Context.empty()

const DESCRIPTION = "Duration of HTTP server requests, from the request's arrival to its response sent (or the client gone)."

/**
 * One series of the duration histogram, counted here and read by the registry at a scrape: the
 * same state effect's own histogram keeps (cumulative buckets, count, sum, min, max), updated
 * without looking the series up in the registry through the context on every request, which is
 * what `Metric#updateUnsafe` does (two context lookups and a map of JSON keys).
 */
class Series {
  readonly #counts = new Uint32Array(DURATION_BOUNDARIES.length + 1)
  #count = 0
  #sum = 0
  #min = Number.MAX_VALUE
  #max = -Number.MAX_VALUE

  update(seconds: number): void {
    let bucket = 0
    while (bucket < DURATION_BOUNDARIES.length && seconds > DURATION_BOUNDARIES[bucket]!) bucket++
    this.#counts[bucket]!++
    this.#count++
    this.#sum += seconds
    if (seconds < this.#min) this.#min = seconds
    if (seconds > this.#max) this.#max = seconds
  }

  state(): Metric.HistogramState {
    let cumulated = 0
    const buckets = DURATION_BOUNDARIES.map((boundary, i): [number, number] => {
      cumulated += this.#counts[i]!
      return [boundary, cumulated]
    })
    return { buckets, count: this.#count, sum: this.#sum, min: this.#min, max: this.#max }
  }
}

/**
 * The duration histogram's series by method, status and route: each made and registered once in
 * the process (as effect's own metrics are: servers in one process share them).
 */
const series = new Map<string, Series>()

const seriesOf = (method: string, status: number, route: string): Series => {
  const key = `${method} ${status} ${route}`
  let found = series.get(key)
  if (found === undefined) {
    const made = new Series()
    const histogram = Metric.histogram(REQUEST_DURATION, {
      description: DESCRIPTION,
      boundaries: DURATION_BOUNDARIES,
      attributes: { http_request_method: method, http_route: route, http_response_status_code: String(status) }
    })
    Metric.registerUnsafe(histogram, processMetrics, {
      get: () => made.state(),
      update: (seconds) => made.update(seconds),
      modify: (seconds) => made.update(seconds)
    })
    series.set(key, made)
    found = made
  }
  return found
}

const makeRecorder = () => {
  // The last series used, with what it was for: consecutive requests of one route and status (a
  // read answered from the cache, over and over) skip the key and the map.
  let last: { readonly method: string; readonly status: number; readonly route: string; readonly series: Series } | undefined
  return (entry: AccessEntry): void => {
    const method = methodOf(entry.method)
    // The cache's reads name their route (packages/http/src/requestListener.ts): no walk of the route tree for most requests.
    const route = entry.route ?? routeOf(entry.path)
    if (last === undefined || last.method !== method || last.status !== entry.status || last.route !== route)
      last = { method, status: entry.status, route, series: seriesOf(method, entry.status, route) }
    last.series.update(entry.durationMs / 1000)
  }
}

/**
 * The access log, each entry also counted in the RED metrics; and the requests the front door
 * receives (it tells `arrived` first thing), counted as active until their entry is written.
 */
export const layerAccessLog = Layer.effect(
  AccessLog,
  Effect.gen(function* () {
    const log = yield* AccessLog
    const record = makeRecorder()
    let received = 0
    let ended = 0
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        Metric.registerUnsafe(
          Metric.gauge(ACTIVE_REQUESTS, { description: "HTTP requests received and not yet answered (or given up by their client)." }),
          processMetrics,
          { get: () => ({ value: Math.max(0, received - ended) }), update: () => {}, modify: () => {} }
        )
      ),
      (registration) => Effect.sync(() => registration.remove())
    )
    const observe = (entry: AccessEntry) => {
      ended++
      record(entry)
    }
    return AccessLog.of({
      arrived: () => {
        received++
        log.arrived()
      },
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
