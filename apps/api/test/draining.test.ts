/**
 * While the server drains, readiness is off (503, so a balancer stops sending), and a request that
 * still arrives on an open connection is answered, with Connection: close so the connection ends.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Lifecycle } from "../src/index.ts"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { bodyOf, type ProblemBody, request } from "./http.ts"

describe("draining", () => {
  layer(serverLayer(memoryStores()), { excludeTestServices: true })((it) => {
    it.effect("/readyz is 503 at once; other requests are answered, each closing its connection", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        expect((yield* request(`${base}/readyz`)).status).toBe(200)
        yield* (yield* Lifecycle).startDraining
        const ready = yield* request(`${base}/readyz`)
        expect(ready.status).toBe(503)
        expect(ready.headers.get("content-type")).toMatch(/^application\/problem\+json/)
        expect(Number(ready.headers.get("retry-after"))).toBeGreaterThan(0)
        expect(bodyOf<ProblemBody>(ready).detail).toContain("shutting down")
        for (const path of ["/products", "/healthz", "/readyz"]) {
          const reply = yield* request(`${base}${path}`)
          expect(reply.status, path).toBe(path === "/readyz" ? 503 : 200)
          expect(reply.headers.get("connection"), path).toBe("close")
        }
      })
    )
  })
})
