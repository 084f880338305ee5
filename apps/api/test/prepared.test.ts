/**
 * A body prepared for one request is compressed only into the coding that
 * request accepts (most API clients accept none): compressing every read into
 * every coding up front cost reads over half their throughput.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { prepareBest, prepareFast, send } from "@productdir/edge/responses/preparedResponse"

const body = new TextEncoder().encode(JSON.stringify({ text: "x".repeat(4000) }))

describe("prepared responses", () => {
  it("a request without Accept-Encoding gets the identity bytes, and nothing is compressed", () => {
    const prepared = prepareFast(body, "application/json")
    const response = send(prepared, { headers: {} }, "public, max-age=10")
    expect(response.headers["content-encoding"]).toBeUndefined()
    expect(prepared.bytes()).toBe(body.byteLength)
  })

  it("a coding is made on the first request that accepts it, then kept for the next", () => {
    const prepared = prepareFast(body, "application/json")
    send(prepared, { headers: { "accept-encoding": "gzip" } }, "public, max-age=10")
    const afterGzip = prepared.bytes()
    expect(afterGzip).toBeGreaterThan(body.byteLength)
    expect(gunzipSync(prepared.encoded("gzip"))).toEqual(Buffer.from(body))
    send(prepared, { headers: { "accept-encoding": "gzip" } }, "public, max-age=10")
    expect(prepared.bytes()).toBe(afterGzip)
    send(prepared, { headers: { "accept-encoding": "br" } }, "public, max-age=10")
    expect(prepared.bytes()).toBeGreaterThan(afterGzip)
  })

  // zlib answers views into its 64 KiB output chunk: a cached variant kept as such held 64 KiB while the
  // byte budget counted a few hundred bytes, so the read cache's memory was far over CACHE_BYTES.
  it.effect("each coding holds exactly the bytes it counts, whichever way it was made", () =>
    Effect.gen(function* () {
      const fast = prepareFast(body, "application/json")
      const best = yield* prepareBest(body, "application/json")
      for (const prepared of [fast, best]) {
        const gzip = prepared.encoded("gzip")
        const br = prepared.encoded("br")
        expect(gzip.buffer.byteLength).toBe(gzip.byteLength)
        expect(br.buffer.byteLength).toBe(br.byteLength)
        expect(prepared.identity.buffer.byteLength).toBe(prepared.identity.byteLength)
        expect(prepared.bytes()).toBe(body.byteLength + gzip.byteLength + br.byteLength)
        expect(gunzipSync(gzip)).toEqual(Buffer.from(body))
        expect(brotliDecompressSync(br)).toEqual(Buffer.from(body))
      }
    })
  )
})
