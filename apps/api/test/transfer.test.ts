/**
 * Transfer: every read carries ETag and Cache-Control (the docs page, the
 * OpenAPI document and llms.txt included) and revalidates to 304; bodies of
 * 1 KiB and more come gzip- or brotli-encoded as the client accepts, each coding
 * with its own strong tag. Raw HTTP, so nothing decodes behind the test's back.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"

const product = sampleCatalog()[0]!

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: Buffer
}

const raw = (url: string, headers: Record<string, string> = {}) =>
  Effect.callback<Raw>((resume) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) })))
    })
    req.on("error", (e) => resume(Effect.die(e)))
    req.end()
  })

const READS = [
  "/docs",
  "/openapi.json",
  "/llms.txt",
  "/",
  "/categories",
  "/products?limit=3",
  `/products/${product.id}`,
  `/entities/${product.id}?format=agent`
]

describe("transfer", () => {
  layer(serverLayer(memoryStores()), { excludeTestServices: true })((it) => {
    it.effect("every read carries ETag and Cache-Control and answers 304 to its own tag", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        for (const path of READS) {
          const first = yield* raw(`${base}${path}`)
          expect(first.status, path).toBe(200)
          const etag = first.headers.etag as string
          expect(etag, path).toMatch(/^"[A-Za-z0-9_-]+"$/)
          expect(first.headers["cache-control"], path).toMatch(/max-age=\d+/)
          const again = yield* raw(`${base}${path}`, { "if-none-match": etag })
          expect(again.status, path).toBe(304)
          expect(again.body.length, path).toBe(0)
          expect(again.headers.etag, path).toBe(etag)
        }
      })
    )

    it.effect("bodies of 1 KiB and more come in the coding the client prefers, each with its own tag", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        for (const path of ["/docs", "/openapi.json", `/entities/${product.id}?format=agent`]) {
          const plain = yield* raw(`${base}${path}`)
          expect(plain.headers["content-encoding"], path).toBeUndefined()
          expect(plain.headers.vary, path).toMatch(/Accept-Encoding/i)
          const br = yield* raw(`${base}${path}`, { "accept-encoding": "gzip, deflate, br" })
          expect(br.headers["content-encoding"], path).toBe("br")
          expect(brotliDecompressSync(br.body).equals(plain.body), path).toBe(true)
          const gz = yield* raw(`${base}${path}`, { "accept-encoding": "gzip;q=1, br;q=0.5" })
          expect(gz.headers["content-encoding"], path).toBe("gzip")
          expect(gunzipSync(gz.body).equals(plain.body), path).toBe(true)
          expect(new Set([plain.headers.etag, br.headers.etag, gz.headers.etag]).size, path).toBe(3)
          const revalidated = yield* raw(`${base}${path}`, { "accept-encoding": "br", "if-none-match": br.headers.etag as string })
          expect(revalidated.status, path).toBe(304)
        }
        const docs = yield* raw(`${base}/docs`, { "accept-encoding": "br" })
        const docsPlain = yield* raw(`${base}/docs`)
        expect(docs.body.length).toBeLessThan(docsPlain.body.length / 3)
      })
    )

    it.effect("a body under 1 KiB is sent as it is", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const small = yield* raw(`${base}/healthz`, { "accept-encoding": "gzip, br" })
        expect(small.headers["content-encoding"]).toBeUndefined()
        expect(small.headers["cache-control"]).toBe("no-store")
      })
    )
  })
})
