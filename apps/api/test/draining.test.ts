/** While the server drains, readiness is off and every request is refused with a clean 503 that closes the connection. */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Lifecycle } from "../src/index.ts"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { bodyOf, type ProblemBody, request } from "./http.ts"

describe("draining", () => {
  layer(serverLayer(memoryStores()), { excludeTestServices: true })((it) => {
    it.effect("/readyz is 503 at once; other requests get a 503 problem with Retry-After and Connection: close", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        expect((yield* request(`${base}/readyz`)).status).toBe(200)
        yield* (yield* Lifecycle).startDraining
        for (const path of ["/readyz", "/products", "/healthz"]) {
          const reply = yield* request(`${base}${path}`)
          expect(reply.status, path).toBe(503)
          expect(reply.headers.get("content-type")).toMatch(/^application\/problem\+json/)
          expect(reply.headers.get("connection")).toBe("close")
          expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0)
          expect(bodyOf<ProblemBody>(reply).detail).toContain("shutting down")
        }
      })
    )
  })
})
