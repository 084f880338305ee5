/**
 * The reads the cache answers at the front door (packages/http/src/cacheFirstReads.ts), over real HTTP: each is the
 * answer the application gives for the same read, header for header and in the same order, in every
 * coding and as a 304; each is counted in the request metrics and logged; and the read cache's hit
 * rate is exact: every read a request asks for is one hit, miss or wait, and refreshes are apart.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { jsonString } from "@productdir/http/accessLog"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { postJson, request } from "./http.ts"
import { freePort, signalGroup, startApi } from "./processes.ts"
import { eventually } from "./prometheus.ts"

const sample = sampleCatalog()

interface Raw {
  readonly status: number
  /** Every header as sent, in order; the date and a generated request id masked. */
  readonly headers: ReadonlyArray<string>
  readonly body: Buffer
  readonly etag: string | undefined
}

/** A GET with node:http, which keeps the response's headers in their order and case. */
const get = (url: string, headers: Record<string, string> = {}) =>
  Effect.promise(
    () =>
      new Promise<Raw>((done, fail) => {
        const req = httpRequest(url, { headers }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (chunk: Buffer) => chunks.push(chunk))
          res.on("end", () => {
            const lines: Array<string> = []
            for (let i = 0; i < res.rawHeaders.length; i += 2) {
              const [name, value] = [res.rawHeaders[i]!, res.rawHeaders[i + 1]!]
              const masked =
                name.toLowerCase() === "date" || (name.toLowerCase() === "x-request-id" && headers["x-request-id"] === undefined)
              lines.push(`${name}: ${masked ? "…" : value}`)
            }
            const etag = res.headers.etag
            done({ status: res.statusCode!, headers: lines, body: Buffer.concat(chunks), etag })
          })
        })
        req.on("error", fail)
        req.end()
      })
  )

const metrics = (base: string) =>
  Effect.map(request(`${base}/metrics`), (reply) => {
    const samples = new Map<string, number>()
    for (const line of reply.text.split("\n")) {
      if (line.startsWith("#") || line.trim() === "") continue
      const at = line.lastIndexOf(" ")
      samples.set(line.slice(0, at), Number(line.slice(at + 1)))
    }
    return samples
  })

const cacheCounts = (base: string) =>
  Effect.map(metrics(base), (m) => ({
    hits: m.get("productdir_read_cache_hits_total")!,
    misses: m.get("productdir_read_cache_misses_total")!,
    waits: m.get("productdir_read_cache_waits_total")!,
    refreshes: m.get("productdir_read_cache_refreshes_total")!
  }))

const durations = (m: Map<string, number>, status: number, le?: string) =>
  m.get(
    le === undefined
      ? `http_server_request_duration_seconds_count{http_request_method="GET",http_route="/products/{id}",http_response_status_code="${status}"}`
      : `http_server_request_duration_seconds_bucket{http_request_method="GET",http_route="/products/{id}",http_response_status_code="${status}",le="${le}"}`
  ) ?? 0

describe("reads answered at the front door", () => {
  layer(serverLayer(memoryStores()), { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("answer as the application does: same status, headers in the same order, same bytes, in every coding and as a 304", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const variants: ReadonlyArray<Record<string, string>> = [
          {},
          { "accept-encoding": "gzip" },
          { "accept-encoding": "br" },
          { "accept-encoding": "gzip, deflate, br" },
          { "accept-encoding": "gzip;q=0, identity" },
          { "if-none-match": "*" },
          { "x-request-id": "client-chosen.7" }
        ]
        let index = 20
        for (const headers of variants) {
          const product = sample[index++]!
          for (const path of [
            `/products/${product.id}`,
            `/products/${product.id}/agent-card`,
            `/entities/${product.id}?format=agent`,
            `/entities/${product.id}/problems`
          ]) {
            const before = yield* cacheCounts(base)
            // Not held yet: the application answers, and the cache keeps the read.
            const fromApplication = yield* get(`${base}${path}`, headers)
            const between = yield* cacheCounts(base)
            const fromDoor = yield* get(`${base}${path}`, headers)
            const after = yield* cacheCounts(base)
            expect(between.misses - before.misses, path).toBe(1)
            expect(after.hits - between.hits, path).toBe(1)
            expect(fromDoor.status, `${path} ${JSON.stringify(headers)}`).toBe(fromApplication.status)
            expect(fromDoor.headers, `${path} ${JSON.stringify(headers)}`).toEqual(fromApplication.headers)
            expect(fromDoor.body.equals(fromApplication.body), path).toBe(true)
          }
        }
      })
    )

    it.effect("the hit rate is exact: each read a request asks for is one hit, miss or wait; a refresh is none of them", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const product = sample[30]!
        const url = `${base}/products/${product.id}`
        const start = yield* cacheCounts(base)
        const first = yield* get(url)
        const etag = first.etag!
        yield* get(url)
        yield* get(url, { "accept-encoding": "gzip" })
        expect((yield* get(url, { "if-none-match": etag })).status).toBe(304)
        const read = yield* cacheCounts(base)
        expect({ hits: read.hits - start.hits, misses: read.misses - start.misses, waits: read.waits - start.waits }).toEqual({
          hits: 3,
          misses: 1,
          waits: 0
        })

        // Twenty at once for a read not held: one load, and every request counted once.
        const other = `${base}/products/${sample[31]!.id}`
        const replies = yield* Effect.all(
          Array.from({ length: 20 }, () => get(other)),
          { concurrency: "unbounded" }
        )
        expect(replies.every((reply) => reply.status === 200)).toBe(true)
        const burst = yield* cacheCounts(base)
        expect(burst.misses - read.misses).toBe(1)
        expect(burst.hits - read.hits + (burst.misses - read.misses) + (burst.waits - read.waits)).toBe(20)

        // A vote changes the product: its read is loaded again ahead of any request, which is no miss.
        const voted = yield* postJson(`${base}/vote`, { entity_id: product.id, direction: "up" }, { "x-forwarded-for": "198.51.100.30" })
        expect(voted.status).toBe(201)
        let refreshed = yield* cacheCounts(base)
        for (let i = 0; i < 100 && refreshed.refreshes === burst.refreshes; i++) {
          yield* Effect.sleep("20 millis")
          refreshed = yield* cacheCounts(base)
        }
        expect(refreshed.refreshes).toBeGreaterThan(burst.refreshes)
        expect(refreshed.misses).toBe(burst.misses)
        const fresh = yield* get(url)
        expect(fresh.etag).not.toBe(etag)
        const end = yield* cacheCounts(base)
        expect({ hits: end.hits - refreshed.hits, misses: end.misses - refreshed.misses }).toEqual({ hits: 1, misses: 0 })
      })
    )

    it.effect("each is counted in the request metrics, with its status; none is left active", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const url = `${base}/products/${sample[32]!.id}`
        const etag = (yield* get(url)).etag!
        const before = yield* metrics(base)
        for (let i = 0; i < 5; i++) yield* get(url, i % 2 === 0 ? {} : { "accept-encoding": "br" })
        yield* get(url, { "if-none-match": etag })
        const after = yield* metrics(base)
        expect(durations(after, 200) - durations(before, 200)).toBe(5)
        expect(durations(after, 304) - durations(before, 304)).toBe(1)
        for (const status of [200, 304]) expect(durations(after, status, "+Inf")).toBe(durations(after, status))
        // The scrape itself is the one request in progress.
        expect(after.get("http_server_active_requests")).toBe(1)
      })
    )

    it.effect("each is counted under the route it came by, a hit as its miss was", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const id = sample[33]!.id
        const count = (m: Map<string, number>, route: string) =>
          m.get(
            `http_server_request_duration_seconds_count{http_request_method="GET",http_route="${route}",http_response_status_code="200"}`
          ) ?? 0
        const reads: ReadonlyArray<readonly [string, string]> = [
          [`/products/${id.toUpperCase()}`, "/products/{id}"],
          [`/products/${id}/agent-card`, "/products/{id}/agent-card"],
          [`/entities/${id}?format=agent`, "/entities/{slug}"],
          [`/entities/${id}/problems`, "/entities/{slug}/problems"]
        ]
        for (const [path, route] of reads) {
          const before = yield* metrics(base)
          const hitsBefore = (yield* cacheCounts(base)).hits
          // The first may be a miss, answered by the application; the second is a hit, at the front door.
          for (let i = 0; i < 2; i++) expect((yield* get(`${base}${path}`)).status, path).toBe(200)
          expect((yield* cacheCounts(base)).hits - hitsBefore, path).toBeGreaterThanOrEqual(1)
          expect(count(yield* metrics(base), route) - count(before, route), path).toBe(2)
        }
      })
    )
  })
})

/** The access log's lines in a process's output. */
const requestLines = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { message: string; annotations: { request_id: string; path: string; status: number } })
    .filter((line) => line.message === "request")

describe("the access log", () => {
  it("writes each string field as JSON.stringify would, whatever its characters", () => {
    for (const text of [
      "GET",
      "/products/0b7f3c8e-3b52-4c8e-9d0a-6f1f2d3c4b5a",
      'a "quoted" path',
      "back\\slash",
      "tab\tand\nnewline\u0000",
      "del\u007f",
      "caf\u00e9",
      "\u{1f600}",
      "lone \ud800 surrogate",
      ""
    ]) {
      expect(jsonString(text), text).toBe(JSON.stringify(text))
      expect(JSON.parse(jsonString(text)), text).toBe(text)
    }
  })

  it("has a line for every read the front door answers, with its request id and status", async () => {
    const api = startApi({ STORE: "memory", SEED: "sample", LOG_LEVEL: "info" })
    try {
      const base = await api.url
      const url = `${base}/products/${sample[3]!.id}`
      const send = (headers: Record<string, string>) => Effect.runPromise(get(url, headers))
      const first = await send({ "x-request-id": "door-0" })
      await send({ "x-request-id": "door-1" })
      await send({ "x-request-id": "door-2", "accept-encoding": "gzip" })
      await send({ "x-request-id": "door-3", "if-none-match": first.etag! })
      signalGroup(api.child, "SIGTERM")
      await api.exited
      const lines = requestLines(api.output())
      const logged = (id: string) => lines.filter((line) => line.annotations.request_id === id)
      for (const [id, status] of [
        ["door-0", 200],
        ["door-1", 200],
        ["door-2", 200],
        ["door-3", 304]
      ] as const) {
        expect(logged(id), id).toHaveLength(1)
        expect(logged(id)[0]!.annotations).toMatchObject({ method: "GET", path: `/products/${sample[3]!.id}`, status })
      }
    } finally {
      signalGroup(api.child, "SIGKILL")
    }
  })

  it("writes every line whole and in order when a burst fills batch after batch", async () => {
    const api = startApi({ STORE: "memory", SEED: "sample", LOG_LEVEL: "info" })
    try {
      const base = await api.url
      // 400 requests with paths of 2,000 letters: about 900 KB of lines, several batches' worth.
      const long = "x".repeat(2_000)
      for (let i = 0; i < 400; i++) await fetch(`${base}/entities/${long}-${i}`, { headers: { "x-request-id": `burst-${i}` } })
      signalGroup(api.child, "SIGTERM")
      await api.exited
      const logged = requestLines(api.output()).filter((line) => line.annotations.request_id.startsWith("burst-"))
      expect(logged.map((line) => line.annotations.request_id)).toEqual(Array.from({ length: 400 }, (_, i) => `burst-${i}`))
      for (const [i, line] of logged.entries()) expect(line.annotations.path).toBe(`/entities/${long}-${i}`)
    } finally {
      signalGroup(api.child, "SIGKILL")
    }
  })

  it("above info (LOG_LEVEL=warn) writes no line, and the request metrics still count every read", async () => {
    // Above info the API does not announce where it listens: given a port, asked until it answers.
    const port = await freePort()
    const api = startApi({ STORE: "memory", SEED: "sample", LOG_LEVEL: "warn", PORT: String(port) })
    try {
      const base = `http://127.0.0.1:${port}`
      // Within the test's own timeout (60 s), so that a start that never answers fails here and `finally` stops it.
      await eventually(
        30_000,
        async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status,
        (status) => status === 200
      )
      const url = `${base}/products/${sample[3]!.id}`
      for (let i = 0; i < 5; i++) await Effect.runPromise(get(url, { "x-request-id": `quiet-${i}` }))
      const metrics = await (await fetch(`${base}/metrics`)).text()
      const reads = metrics
        .split("\n")
        .find((line) => line.startsWith("http_server_request_duration_seconds_count{") && line.includes('http_route="/products/{id}"'))
      expect(Number(reads?.split(" ").at(-1))).toBe(5)
      signalGroup(api.child, "SIGTERM")
      await api.exited
      expect(api.output()).not.toContain("quiet-")
    } finally {
      signalGroup(api.child, "SIGKILL")
    }
  })
})
