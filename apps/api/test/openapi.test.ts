import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { sampleCatalog } from "@productdir/testkit/sample"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { bodyOf, request } from "./http.ts"

/** What the service promises to serve, written down independently of the API definition. */
const PROMISED = [
  "GET /products/{id}",
  "GET /products/{id}/agent-card",
  "POST /vote",
  "GET /entities/{slug}",
  "GET /entities/{slug}/problems",
  "GET /products",
  "GET /categories",
  "GET /",
  "GET /llms.txt",
  "GET /healthz",
  "GET /readyz"
]

interface Operation {
  readonly summary?: string
  readonly responses: Record<string, unknown>
  readonly parameters?: ReadonlyArray<{ name: string; in: string }>
  readonly requestBody?: unknown
}

const product = sampleCatalog()[0]!

const concrete = (path: string) => path.replace("{id}", product.id).replace("{slug}", product.id)

describe("OpenAPI compliance", () => {
  layer(serverLayer(memoryStores()), { excludeTestServices: true })((it) => {
    it.effect("the document lists exactly the promised operations, each described with its responses", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const doc = bodyOf<{ paths: Record<string, Record<string, Operation>> }>(yield* request(`${base}/openapi.json`))
        const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
          Object.keys(item).filter((m) => ["get", "post", "put", "patch", "delete"].includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
        expect(documented.sort()).toEqual([...PROMISED].sort())
        for (const [path, item] of Object.entries(doc.paths)) {
          for (const operation of Object.values(item)) {
            expect(operation.summary, path).toBeTruthy()
            expect(Object.keys(operation.responses).some((s) => s.startsWith("2")), path).toBe(true)
          }
        }
        expect(Object.keys(doc.paths["/vote"]!["post"]!.responses)).toEqual(expect.arrayContaining(["200", "201", "400", "404", "410", "429"]))
      }))

    it.effect("every documented operation is served (no route 404 or 405)", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const doc = bodyOf<{ paths: Record<string, Record<string, Operation>> }>(yield* request(`${base}/openapi.json`))
        for (const [path, item] of Object.entries(doc.paths)) {
          for (const method of Object.keys(item)) {
            const reply = yield* request(`${base}${concrete(path)}`, method === "post"
              ? { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ entity_id: product.id }) }
              : {})
            expect(reply.status, `${method} ${path}`).toBeLessThan(300)
          }
        }
      }))

    it.effect("every served route is documented: near misses of documented paths are not served", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        for (const probe of ["/product", "/products/x/y/z", "/entity/x", "/votes", "/category", "/health", `/entities/${product.id}/problem`]) {
          expect((yield* request(`${base}${probe}`)).status, probe).toBe(404)
        }
        const wrongMethods: ReadonlyArray<readonly [string, string]> = [
          ["DELETE", `/products/${product.id}`],
          ["PUT", "/vote"],
          ["POST", "/products"],
          ["PATCH", "/categories"]
        ]
        for (const [method, path] of wrongMethods) {
          const reply = yield* request(`${base}${path}`, { method })
          expect(reply.status, `${method} ${path}`).toBe(405)
          expect(reply.headers.get("allow")).toBeTruthy()
        }
      }))
  })
})
