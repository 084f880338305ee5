/**
 * The ceiling of the read benchmark: a node:http server that answers every
 * request with ready-made bytes (a product record). Nothing productdir does per
 * read can be faster than this on the same machine. Two variants say what
 * bounds the API's cached read below it (bench/src/api.ts, "what bounds a
 * cached read"):
 *
 * - `BODIES` (a file of JSON lines `[id, record, etag, cache-control]`, as the API
 *   served them): each product's own record, looked up by the id in
 *   `/products/{id}`, where the plain ceiling writes one record, always in the
 *   core's caches, for every id;
 * - `EXTRAS=1`: and what every productdir response carries beyond the bytes, done
 *   as cheaply as node:http allows, so that it writes the same bytes as the API: a
 *   request id in a header and a JSON access-log line per request, batched into a
 *   buffer (discarded, where the API writes it to a stdout that the benchmark sends
 *   to /dev/null every 50 ms), and the record's own headers (etag, cache-control,
 *   vary) in the API's order.
 */
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"

const one = Buffer.from(process.env.BODY ?? JSON.stringify({ record: "x".repeat(2400) }))
interface Ready {
  readonly body: Buffer
  readonly etag: string
  readonly cacheControl: string
}
const oneReady: Ready = { body: one, etag: '"ready"', cacheControl: "public, max-age=1" }
const bodies = new Map<string, Ready>(
  process.env.BODIES === undefined
    ? []
    : readFileSync(process.env.BODIES, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          const [id, record, etag, cacheControl] = JSON.parse(line) as [string, string, string | null, string | null]
          return [id, { body: Buffer.from(record), etag: etag ?? oneReady.etag, cacheControl: cacheControl ?? oneReady.cacheControl }]
        })
)
const PREFIX = "/products/".length
const extras = process.env.EXTRAS === "1"
const log = Buffer.allocUnsafeSlow(256 * 1024)
let logged = 0

createServer((request, response) => {
  const ready = bodies.size === 0 ? oneReady : (bodies.get((request.url ?? "").slice(PREFIX)) ?? oneReady)
  const body = ready.body
  if (!extras) {
    response.writeHead(200, { "content-type": "application/json", "content-length": body.byteLength, etag: '"ready"' })
    response.end(body)
    return
  }
  const started = performance.now()
  const requestId = randomUUID()
  response.writeHead(200, [
    "x-request-id",
    requestId,
    "etag",
    ready.etag,
    "cache-control",
    ready.cacheControl,
    "vary",
    "Accept-Encoding",
    "content-type",
    "application/json",
    "content-length",
    String(body.byteLength)
  ])
  response.end(body)
  const line = `{"message":"request","level":"INFO","timestamp":"${new Date().toISOString()}","annotations":{"method":${JSON.stringify(request.method)},"path":${JSON.stringify(request.url)},"status":200,"duration_ms":${Math.round((performance.now() - started) * 10) / 10},"request_id":${JSON.stringify(requestId)}}}\n`
  if (logged + 3 * line.length > log.length) logged = 0
  logged += log.write(line, logged)
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`ready-bytes listening on ${process.env.PORT}`))

process.on("SIGTERM", () => process.exit(0))
