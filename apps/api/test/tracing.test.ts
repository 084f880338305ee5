/**
 * Traces over OTLP/HTTP, with a receiver of the test's own (a node:http server that keeps what is
 * POSTed to /v1/traces). The API runs as users run it, on an embedded data directory, with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at the receiver: a request sent with a `traceparent` is
 * exported as a span of the caller's trace, named for its route with its status, the vote's store
 * calls beneath it named for what they do and for their statement, never its values; the response
 * names the trace and the access log line carries it. A CLI run beside it is a trace too (in
 * protobuf, the exporter's default). Without the setting, nothing says a trace.
 */
import { afterAll, beforeAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sampleRecords } from "@productdir/fixtures/sample"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { request } from "./http.ts"
import { AGENTS_BIN, run, signalGroup, startApi, type Started, vote } from "./processes.ts"
import { eventually } from "./prometheus.ts"

interface Received {
  readonly contentType: string
  readonly body: Buffer
}

interface OtlpAttribute {
  readonly key: string
  readonly value: { readonly stringValue?: string; readonly intValue?: string | number; readonly boolValue?: boolean }
}

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<OtlpAttribute>
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value
  return value?.stringValue ?? (value?.intValue === undefined ? value?.boolValue : Number(value.intValue))
}

/** A receiver of OTLP/HTTP traces: every POST /v1/traces kept, answered 200. */
const startReceiver = () =>
  new Promise<{ server: Server; url: string; received: Array<Received> }>((resolve) => {
    const received: Array<Received> = []
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        if (req.method === "POST" && req.url === "/v1/traces")
          received.push({ contentType: String(req.headers["content-type"]), body: Buffer.concat(chunks) })
        res.writeHead(200, { "content-type": "application/json" })
        res.end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({ server, url: `http://127.0.0.1:${port}`, received })
    })
  })

/** Every span the receiver got as JSON. */
const jsonSpans = (received: ReadonlyArray<Received>): Array<OtlpSpan> =>
  received
    .filter((r) => r.contentType.startsWith("application/json"))
    .flatMap((r) => {
      const data = JSON.parse(r.body.toString()) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpan> }> }>
      }
      return data.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
    })

const hex = (bytes: number) => randomBytes(bytes).toString("hex")
const product = sampleRecords()[3]!

describe("traces exported over OTLP/HTTP", { timeout: 180_000 }, () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let api: Started
  let base: string
  const dir = mkdtempSync(join(tmpdir(), "productdir-tracing-"))
  const dataDir = join(dir, "data")

  beforeAll(async () => {
    receiver = await startReceiver()
    api = startApi({
      DATA_DIR: dataDir,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_SERVICE_NAME: "productdir-api-under-test"
    })
    base = await api.url
  }, 120_000)

  afterAll(async () => {
    if (api !== undefined) {
      signalGroup(api.child, "SIGTERM")
      await api.exited
    }
    await new Promise((resolve) => receiver?.server.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  })

  it("a read is a span of the caller's trace, named for its route, with its status", async () => {
    const traceId = hex(16)
    const callerSpan = hex(8)
    const response = await fetch(`${base}/products/${product.id}`, { headers: { traceparent: `00-${traceId}-${callerSpan}-01` } })
    expect(response.status).toBe(200)
    // The response names the trace it was served in.
    expect(response.headers.get("traceresponse")).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`))

    const spans = await eventually(
      30_000,
      async () => jsonSpans(receiver.received).filter((s) => s.traceId === traceId),
      (found) => found.some((s) => s.kind === 2)
    )
    const server = spans.find((s) => s.kind === 2)!
    expect(server.parentSpanId).toBe(callerSpan)
    expect(server.name).toBe("GET /products/{id}")
    expect(attribute(server, "http.route")).toBe("/products/{id}")
    expect(attribute(server, "http.response.status_code")).toBe(200)
    expect(attribute(server, "http.request.method")).toBe("GET")

    // The access log line of the request carries the trace id.
    await eventually(
      10_000,
      async () => api.output(),
      (output) =>
        output.split("\n").some((line) => line.includes(`"path":"/products/${product.id}"`) && line.includes(`"trace_id":"${traceId}"`))
    )
  })

  it("a vote's store calls are child spans named for their statement, without its values", async () => {
    const traceId = hex(16)
    const reply = await vote(
      base,
      { entity_id: product.id, direction: "down", reason: "tracing-test-reason" },
      {
        traceparent: `00-${traceId}-${hex(8)}-01`
      }
    )
    expect(reply.status).toBe(201)

    const spans = await eventually(
      30_000,
      async () => jsonSpans(receiver.received).filter((s) => s.traceId === traceId),
      (found) => found.some((s) => s.kind === 2) && found.some((s) => attribute(s, "db.query.text") !== undefined)
    )
    const server = spans.find((s) => s.kind === 2)!
    expect(server.name).toBe("POST /vote")
    expect(attribute(server, "http.response.status_code")).toBe(201)
    const names = spans.map((s) => s.name)
    expect(names).toContain("Directory.vote")
    // Every span of the request hangs from the server's span.
    const ids = new Set(spans.map((s) => s.spanId))
    for (const span of spans.filter((s) => s !== server)) expect(ids.has(span.parentSpanId ?? "")).toBe(true)

    const statements = spans.filter((s) => attribute(s, "db.query.text") !== undefined)
    expect(statements.length).toBeGreaterThan(0)
    for (const statement of statements) {
      // Named for the statement (`SELECT products`), not for the database.
      expect(statement.name).toMatch(/^(SELECT|INSERT|UPDATE|DELETE|WITH|BEGIN|COMMIT|SAVEPOINT|RELEASE|ROLLBACK|CALL)\b/)
      expect(attribute(statement, "db.query.summary")).toBe(statement.name)
      // Placeholders, never the values: not the product, not the reason.
      const text = String(attribute(statement, "db.query.text"))
      expect(text).not.toContain(product.id)
      expect(text).not.toContain("tracing-test-reason")
    }
  })

  it("a CLI's run is a trace of its own, in protobuf by default", async () => {
    const before = receiver.received.length
    const result = await run(AGENTS_BIN, ["list"], {
      DATA_DIR: dataDir,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: "200"
    })
    expect(result.code, result.stderr).toBe(0)
    // Exported before the process exited.
    const protobuf = receiver.received.slice(before).filter((r) => r.contentType.startsWith("application/x-protobuf"))
    expect(protobuf.length).toBeGreaterThan(0)
    const body = Buffer.concat(protobuf.map((r) => r.body))
    expect(body.includes(Buffer.from("productdir-agents"))).toBe(true)
    expect(body.includes(Buffer.from("productdir.command"))).toBe(true)
  })
})

describe("without an OTLP endpoint", () => {
  layer(serverLayer(memoryStores()), { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("no response names a trace", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const reply = yield* request(`${base}/products/${product.id}`, { headers: { traceparent: `00-${hex(16)}-${hex(8)}-01` } })
        expect(reply.status).toBe(200)
        expect(reply.headers.get("traceresponse")).toBeNull()
      })
    )
  })
})
