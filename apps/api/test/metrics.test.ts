/**
 * What /metrics shows and who may read it, over real HTTP: votes by outcome (recorded, unchanged,
 * changed, limited), MCP tool calls by tool and outcome with the official SDK client, its sessions;
 * on the SQL stores the change feed's lag and the database's connections; METRICS_TOKEN's Bearer
 * check; METRICS_PORT's loopback listener (the API as a process), and productdir-reconcile's
 * --metrics-file beside it.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { afterAll, beforeAll, describe, expect, it, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Option, Redacted } from "effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, memoryStores, serverLayer, storeVariants } from "./harness.ts"
import { bodyOf, postJson, type ProblemBody, request } from "./http.ts"
import { freePort, RECONCILE_BIN, run, signalGroup, startApi, type Started } from "./processes.ts"
import { eventually } from "./prometheus.ts"

const sample = sampleCatalog()

/** Every sample of the exposition: `name{labels}` -> value. */
const parse = (text: string): Map<string, number> => {
  const samples = new Map<string, number>()
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue
    const at = line.lastIndexOf(" ")
    samples.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return samples
}

const scrape = (base: string, headers: Record<string, string> = {}) =>
  Effect.map(request(`${base}/metrics`, { headers }), (reply) => {
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    return parse(reply.text)
  })

const votes = (samples: Map<string, number>, outcome: string, counting: string) =>
  samples.get(`productdir_votes_total{outcome="${outcome}",counting="${counting}"}`) ?? 0

const expectProblem = (reply: { status: number; headers: Headers; json: unknown }, status: number) => {
  expect(reply.status).toBe(status)
  expect(reply.headers.get("content-type")).toMatch(/^application\/problem\+json/)
  const body = bodyOf<ProblemBody>(reply as never)
  expect(body).toMatchObject({ type: "about:blank", status })
  return body
}

describe("what /metrics shows", () => {
  // Three votes a minute per address: the fourth is refused by the limit.
  layer(serverLayer(memoryStores(), { votesPerAddress: 3, votesPerVoter: 3 }), { timeout: "120 seconds", excludeTestServices: true })(
    (it) => {
      it.effect("votes by outcome: recorded, unchanged, changed, limited", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const before = yield* scrape(base)
          const id = sample[5]!.id
          const from = { "x-forwarded-for": "198.51.100.77" }
          expect((yield* postJson(`${base}/vote`, { entity_id: id, direction: "up" }, from)).status).toBe(201)
          expect((yield* postJson(`${base}/vote`, { entity_id: id, direction: "up" }, from)).status).toBe(200)
          expect((yield* postJson(`${base}/vote`, { entity_id: id, direction: "down", reason: "broke" }, from)).status).toBe(200)
          expect((yield* postJson(`${base}/vote`, { entity_id: id, direction: "up" }, from)).status).toBe(429)
          const after = yield* scrape(base)
          for (const outcome of ["recorded", "unchanged", "changed"])
            expect(votes(after, outcome, "counted") - votes(before, outcome, "counted"), outcome).toBe(1)
          expect(votes(after, "limited", "none") - votes(before, "limited", "none")).toBe(1)
          // The request metrics count them by status, under the route's template.
          const key = (status: number) =>
            `http_server_request_duration_seconds_count{http_request_method="POST",http_route="/vote",http_response_status_code="${status}"}`
          expect((after.get(key(429)) ?? 0) - (before.get(key(429)) ?? 0)).toBe(1)
          expect(after.get("http_server_active_requests")).toBeGreaterThanOrEqual(1)
        })
      )

      it.effect("MCP tool calls by tool and outcome, and the sessions", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const before = yield* scrape(base)
          const client = new Client({ name: "metrics-test", version: "1.0.0" })
          yield* Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`))))
          const ok = yield* Effect.promise(() => client.callTool({ name: "get_product", arguments: { entity_id: sample[0]!.id } }))
          expect(ok.isError).not.toBe(true)
          const missing = yield* Effect.promise(() =>
            client.callTool({ name: "get_product", arguments: { entity_id: "no-such-product-anywhere" } })
          )
          expect(missing.isError).toBe(true)
          const during = yield* scrape(base)
          const calls = (samples: Map<string, number>, outcome: string) =>
            samples.get(`productdir_mcp_tool_calls_total{tool="get_product",outcome="${outcome}"}`) ?? 0
          expect(calls(during, "ok") - calls(before, "ok")).toBe(1)
          expect(calls(during, "tool_error") - calls(before, "tool_error")).toBe(1)
          expect(during.get("productdir_mcp_sessions")).toBeGreaterThanOrEqual(1)
          yield* Effect.promise(() => client.close())
        })
      )

      it.effect("the read cache's and the process's figures are still there", () =>
        Effect.gen(function* () {
          const samples = yield* scrape(yield* baseUrl)
          for (const name of ["productdir_read_cache_hits_total", "productdir_read_cache_budget_bytes", "process_resident_memory_bytes"])
            expect(samples.get(name), name).toBeGreaterThan(-1)
        })
      )

      it.effect("the event loop's delay since the last scrape, and V8's collections by kind", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const before = yield* scrape(base)
          const gcCount = (samples: Map<string, number>, kind: string) => samples.get(`nodejs_gc_duration_seconds_count{kind="${kind}"}`)
          for (const kind of ["minor", "major", "incremental", "weakcb"]) expect(gcCount(before, kind), kind).toBeGreaterThanOrEqual(0)
          // A scrape starts the loop's figures again, and the monitor's first tick after it only marks the time: let it tick.
          yield* Effect.sleep("50 millis")
          // The server runs in this process: a loop blocked for 80 ms is a request waiting 80 ms, and the next scrape says so.
          const blockedUntil = Date.now() + 80
          while (Date.now() < blockedUntil) {
            // busy: nothing else runs
          }
          // Young garbage, held for a moment each (so no compiler can leave it unallocated): collections of the young generation.
          const held: Array<{ readonly i: number }> = []
          let dropped = 0
          for (let i = 0; i < 2_000_000; i++) {
            held.push({ i })
            if (held.length === 10_000) {
              dropped += held.length
              held.length = 0
            }
          }
          expect(dropped).toBe(2_000_000)
          const after = yield* scrape(base)
          expect(after.get("nodejs_eventloop_lag_max_seconds")).toBeGreaterThanOrEqual(0.05)
          const p50 = after.get("nodejs_eventloop_lag_p50_seconds")!
          expect(p50).toBeGreaterThan(0)
          expect(p50).toBeLessThanOrEqual(after.get("nodejs_eventloop_lag_p99_seconds")!)
          expect(gcCount(after, "minor")!).toBeGreaterThan(gcCount(before, "minor")!)
          // A histogram: cumulative buckets, +Inf equal to the count, a sum of pauses in seconds.
          const bucket = (le: string) => after.get(`nodejs_gc_duration_seconds_bucket{le="${le}",kind="minor"}`)!
          expect(bucket("0.001")).toBeLessThanOrEqual(bucket("0.01"))
          expect(bucket("5")).toBeLessThanOrEqual(bucket("+Inf"))
          expect(bucket("+Inf")).toBe(gcCount(after, "minor"))
          expect(after.get(`nodejs_gc_duration_seconds_sum{kind="minor"}`)).toBeGreaterThan(0)
        })
      )
    }
  )
})

reportLeftOut("the store's figures", storesLeftOut())
for (const variant of storeVariants()) {
  describe(`the store's figures on ${variant.name}`, () => {
    layer(serverLayer(variant.stores()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("the change feed's lag, and the database's connections on a server", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          // The cache follows the feed; a read makes sure it is followed, then a poll has to run.
          expect((yield* request(`${base}/products/${sample[0]!.id}`)).status).toBe(200)
          const samples = yield* Effect.promise(() =>
            eventually(
              30_000,
              () => Effect.runPromise(scrape(base)),
              (s) => s.has("productdir_change_feed_lag_seconds")
            )
          )
          const lag = samples.get("productdir_change_feed_lag_seconds")!
          expect(lag).toBeGreaterThanOrEqual(0)
          expect(lag).toBeLessThan(10)
          if (variant.name === "postgres") {
            // The scrape's own statement at least is running.
            expect(samples.get(`productdir_db_connections{state="active"}`)).toBeGreaterThanOrEqual(1)
            expect(samples.has(`productdir_db_connections{state="idle"}`)).toBe(true)
            expect(samples.get("productdir_db_connections_waiting")).toBeGreaterThanOrEqual(0)
          }
        })
      )
    })
  })
}

describe("METRICS_TOKEN", () => {
  const token = "a-token-for-the-metrics-0123456789"
  layer(serverLayer(memoryStores(), { metricsToken: Option.some(Redacted.make(token)) }), {
    timeout: "60 seconds",
    excludeTestServices: true
  })((it) => {
    it.effect("no token or a wrong one is a 401 problem with a Bearer challenge; the token opens it", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const none = yield* request(`${base}/metrics`)
        expect(expectProblem(none, 401).detail).toContain("Authorization: Bearer")
        expect(none.headers.get("www-authenticate")).toMatch(/^Bearer /)
        expect(none.text).not.toContain("http_server_request_duration_seconds")
        const wrong = yield* request(`${base}/metrics`, { headers: { authorization: `Bearer ${token}x` } })
        expect(expectProblem(wrong, 401).detail).toContain("does not open")
        const basic = yield* request(`${base}/metrics`, { headers: { authorization: "Basic dXNlcjpwYXNz" } })
        expectProblem(basic, 401)
        const samples = yield* scrape(base, { authorization: `Bearer ${token}` })
        expect([...samples.keys()].some((key) => key.startsWith("http_server_request_duration_seconds_bucket{"))).toBe(true)
      })
    )
  })
})

interface Readiness {
  readonly status: string
  readonly servers?: ReadonlyArray<{ readonly role: string; readonly server: string; readonly reachable: boolean }>
}

// The servers /readyz reaches are named to whoever may read the metrics where it asks, and to no one else: a
// balancer needs ready or not, an attacker would learn the database's address. Only a server store has servers.
reportLeftOut(
  "the servers /readyz reaches",
  storesLeftOut().filter((v) => v.name === "postgres")
)
for (const variant of storeVariants().filter((v) => v.name === "postgres")) {
  const readiness = (url: string, headers: Record<string, string> = {}) =>
    Effect.map(request(url, { headers }), (reply) => {
      expect(reply.status).toBe(200)
      expect(reply.headers.get("cache-control")).toBe("no-store")
      return bodyOf<Readiness>(reply)
    })
  const port = await freePort()
  const primaryOnly = (ready: Readiness) => ready.servers?.map((s) => [s.role, s.reachable, /^[^@]+:\d+\/\w+$/.test(s.server)])

  describe("which servers /readyz names", () => {
    layer(serverLayer(variant.stores()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("metrics open: to anyone", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          expect(primaryOnly(yield* readiness(`${base}/readyz`))).toEqual([["primary", true, true]])
        })
      )
    })

    const token = "a-token-for-the-metrics-0123456789"
    layer(serverLayer(variant.stores(), { metricsToken: Option.some(Redacted.make(token)) }), {
      timeout: "120 seconds",
      excludeTestServices: true
    })((it) => {
      it.effect("behind METRICS_TOKEN: only with the token; ready to anyone", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          expect(yield* readiness(`${base}/readyz`)).toEqual({ status: "ready" })
          expect(yield* readiness(`${base}/readyz`, { authorization: `Bearer ${token}x` })).toEqual({ status: "ready" })
          expect(primaryOnly(yield* readiness(`${base}/readyz`, { authorization: `Bearer ${token}` }))).toEqual([["primary", true, true]])
        })
      )
    })

    layer(serverLayer(variant.stores(), { metricsPort: Option.some(port) }), { timeout: "120 seconds", excludeTestServices: true })(
      (it) => {
        it.effect("with METRICS_PORT: on its loopback listener, not on the public port", () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            expect(yield* readiness(`${base}/readyz`)).toEqual({ status: "ready" })
            expect(primaryOnly(yield* readiness(`http://127.0.0.1:${port}/readyz`))).toEqual([["primary", true, true]])
          })
        )
      }
    )
  })
}

describe("METRICS_PORT, and productdir-reconcile's --metrics-file", { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "productdir-metrics-"))
  const dataDir = join(dir, "data")
  let api: Started
  let base: string
  let metricsUrl: string

  beforeAll(async () => {
    api = startApi({ DATA_DIR: dataDir, METRICS_PORT: "0" })
    base = await api.url
    const announced = await eventually(
      30_000,
      async () => /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(api.output())?.[1],
      (url) => url !== undefined
    )
    metricsUrl = announced!
  }, 120_000)

  afterAll(async () => {
    if (api !== undefined) {
      signalGroup(api.child, "SIGTERM")
      await api.exited
    }
    rmSync(dir, { recursive: true, force: true })
  })

  it("the public port answers 404; the loopback listener serves /metrics and /readyz and nothing else", async () => {
    expect((await fetch(`${base}/products/${sample[0]!.id}`)).status).toBe(200)
    // Spellings the router serves as the same route are counted under it, not as `unmatched` (they were).
    for (const spelling of [`/PRODUCTS/${sample[0]!.id}`, `//products/${sample[0]!.id}`, `/products/${sample[0]!.id}/`]) {
      expect((await fetch(`${base}${spelling}`)).status, spelling).toBe(200)
    }
    // A ; is part of the path (packages/http/src/requestTarget.ts): no id has one, and the route counts the refusal.
    expect((await fetch(`${base}/products/${sample[0]!.id};v=1`)).status).toBe(400)
    const publicReply = await fetch(`${base}/metrics`)
    expect(publicReply.status).toBe(404)
    expect(publicReply.headers.get("content-type")).toMatch(/^application\/problem\+json/)
    expect(((await publicReply.json()) as ProblemBody).detail).toContain("METRICS_PORT")

    const reply = await fetch(metricsUrl)
    expect(reply.status).toBe(200)
    const samples = parse(await reply.text())
    expect(
      samples.get(
        `http_server_request_duration_seconds_count{http_request_method="GET",http_route="/products/{id}",http_response_status_code="200"}`
      )
    ).toBe(4)
    expect(
      samples.get(
        `http_server_request_duration_seconds_count{http_request_method="GET",http_route="/products/{id}",http_response_status_code="400"}`
      )
    ).toBe(1)
    expect(
      samples.get(
        `http_server_request_duration_seconds_count{http_request_method="GET",http_route="/metrics",http_response_status_code="404"}`
      )
    ).toBe(1)

    const ready = await fetch(metricsUrl.replace("/metrics", "/readyz"))
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ status: "ready" })

    const other = await fetch(metricsUrl.replace("/metrics", "/products"))
    expect(other.status).toBe(404)
    expect(other.headers.get("content-type")).toMatch(/^application\/problem\+json/)
  })

  it("a reconciliation writes its run's figures to --metrics-file", async () => {
    const file = join(dir, "reconcile.prom")
    const result = await run(RECONCILE_BIN, ["--metrics-file", file], { DATA_DIR: dataDir })
    expect(result.code, result.stderr).toBe(0)
    const samples = parse(readFileSync(file, "utf8"))
    expect(samples.get("productdir_reconcile_runs_total")).toBe(1)
    expect(samples.get("productdir_reconcile_products_checked")).toBeGreaterThanOrEqual(sample.length)
    expect(samples.get("productdir_reconcile_products_repaired")).toBe(0)
    expect(samples.get("productdir_reconcile_duration_seconds")).toBeGreaterThan(0)
    expect(samples.get("productdir_reconcile_last_run_timestamp_seconds")).toBeGreaterThan(Date.now() / 1000 - 600)
    // The integrity pass ran before it (the crowd defense is on by default).
    expect(samples.get("productdir_integrity_votes_discounted")).toBe(0)
    expect(samples.get("productdir_integrity_pass_duration_seconds")).toBeGreaterThanOrEqual(0)
  })
})
