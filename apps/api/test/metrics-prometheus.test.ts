/**
 * A real Prometheus scrapes the API (METRICS_TOKEN set: it sends the Bearer token, as its
 * configuration would in production), and what the API measured is read back through Prometheus'
 * query API: how many product reads it served, and a latency quantile computed by
 * histogram_quantile over the `_bucket` series. The reads are the cache's (answered at the front
 * door) and a miss; the unknown paths share one route label however many there are.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { request } from "./http.ts"
import { eventually, prometheusMissing, prometheusVersion, startPrometheus } from "./prometheus.ts"

const TOKEN = "metrics-test-token-0123456789"
const product = sampleCatalog()[2]!
const READS = 25
const STRAYS = 7
const route = `http_route="/products/{id}",http_request_method="GET",http_response_status_code="200"`

const missing = prometheusMissing()

// Without the binary (a newcomer's machine), the test is reported skipped, its name saying why and how to install it.
describe.skipIf(missing !== undefined)(
  missing === undefined ? "metrics scraped by Prometheus" : `metrics scraped by Prometheus (${missing})`,
  () => {
    layer(serverLayer(memoryStores(), { metricsToken: Option.some(Redacted.make(TOKEN)) }), {
      timeout: "120 seconds",
      excludeTestServices: true
    })((it) => {
      it.effect(
        "Prometheus reads the request count and a latency quantile of GET /products/{id}",
        () =>
          Effect.gen(function* () {
            // Fails, saying how to install it, when there is no prometheus binary.
            expect(prometheusVersion()).toMatch(/^prometheus, version 2\./)
            const base = yield* baseUrl
            const prometheus = yield* startPrometheus({ target: new URL(base).host, bearerToken: TOKEN })

            // The scrape works with the token: the target is up.
            yield* Effect.promise(() =>
              eventually(
                60_000,
                () => prometheus.query(`up{job="productdir"}`),
                (result) => result[0]?.value === 1
              )
            )

            for (let i = 0; i < READS; i++) expect((yield* request(`${base}/products/${product.id}`)).status).toBe(200)
            for (let i = 0; i < STRAYS; i++) expect((yield* request(`${base}/no/such/path-${i}`)).status).toBe(404)

            const reads = yield* Effect.promise(() =>
              eventually(
                60_000,
                () => prometheus.query(`sum(http_server_request_duration_seconds_count{${route}})`),
                (result) => (result[0]?.value ?? 0) >= READS
              )
            )
            expect(reads[0]!.value).toBe(READS)

            const [p90] = yield* Effect.promise(() =>
              prometheus.query(`histogram_quantile(0.9, sum by (le) (http_server_request_duration_seconds_bucket{${route}}))`)
            )
            // Seconds: a read of a product on this machine is well under a second, and takes some time.
            expect(p90!.value).toBeGreaterThan(0)
            expect(p90!.value).toBeLessThan(1)

            // Paths no route serves share one label; none of them becomes a series of its own.
            const strays = yield* Effect.promise(() =>
              eventually(
                60_000,
                () => prometheus.query(`sum(http_server_request_duration_seconds_count{http_route="unmatched"})`),
                (result) => (result[0]?.value ?? 0) >= STRAYS
              )
            )
            expect(strays[0]!.value).toBe(STRAYS)
            expect(
              yield* Effect.promise(() => prometheus.query(`http_server_request_duration_seconds_count{http_route=~".*path-.*"}`))
            ).toEqual([])
            const routes = yield* Effect.promise(() =>
              prometheus.query(`count by (http_route) (http_server_request_duration_seconds_count)`)
            )
            for (const { metric } of routes) expect(metric.http_route).toMatch(/^(\/[^:]*|unmatched)$/)

            // The runtime's series parse as Prometheus reads them: the loop's delay a gauge, the collections a histogram by kind.
            const [lag] = yield* Effect.promise(() => prometheus.query("nodejs_eventloop_lag_p99_seconds"))
            expect(lag!.value).toBeGreaterThanOrEqual(0)
            const kinds = yield* Effect.promise(() => prometheus.query("count by (kind) (nodejs_gc_duration_seconds_count)"))
            expect(kinds.map(({ metric }) => metric.kind).sort()).toEqual(["incremental", "major", "minor", "weakcb"])
          }).pipe(Effect.scoped),
        { timeout: 180_000 }
      )
    })
  }
)
