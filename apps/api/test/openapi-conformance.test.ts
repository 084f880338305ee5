/**
 * The document and the server agree, both ways. Every operation of the served
 * /openapi.json is requested over real HTTP, along its success and error paths,
 * and every response is checked against the document with a real validator
 * (ajv, JSON Schema 2020-12): its status is documented for the operation, its
 * content type is one the status documents, every required header is there and
 * every documented header it carries has the documented form, and its body
 * validates against the documented schema. Then every operation is requested
 * while the server drains (answered as documented, closing the connection;
 * readiness a documented 503). The other way round:
 * every operation the document lists was requested, and paths it does not list
 * are not served.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { Effect, Layer } from "effect"
import { CATALOG_FIELD_NAMES, CatalogStore } from "@productdir/domain"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { Lifecycle } from "../src/index.ts"
import { baseUrl, serverLayer, storeVariants } from "./harness.ts"
import { type Reply, request } from "./http.ts"

type Json = Record<string, unknown>

/** The part of an OpenAPI 3.1 document the checker reads. */
interface HeaderObject {
  readonly $ref?: string
  readonly required?: boolean
  readonly schema: Json & { readonly type?: string }
}
interface ResponseObject {
  readonly headers?: Record<string, HeaderObject>
  readonly content?: Record<string, { readonly schema: Json }>
}
interface OpenApiDocument {
  readonly paths: Record<string, Record<string, { readonly responses: Record<string, ResponseObject> }>>
  readonly components: { readonly headers: Record<string, HeaderObject> }
}

const sample = sampleCatalog()
const product = sample[0]!
const removed = sample[1]!
const limited = sample[2]!

interface Case {
  /** The documented operation: "get /products/{id}". */
  readonly operation: string
  readonly path: string
  readonly init?: RequestInit
  /** The status this case must produce. */
  readonly status: number
}

const get = (operation: string, path: string, status: number, headers: Record<string, string> = {}): Case => ({
  operation: `get ${operation}`,
  path,
  status,
  init: { headers }
})

const post =
  (path: string) =>
  (body: unknown, status: number, headers: Record<string, string> = {}): Case => ({
    operation: `post ${path}`,
    path,
    status,
    init: {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body)
    }
  })
const vote = post("/vote")
const register = post("/agents")
const claimDomain = post("/publishers")
const verifyClaim = (id: string, status: number): Case => ({
  operation: "post /publishers/{publisher_id}/verify",
  path: `/publishers/${id}/verify`,
  status,
  init: { method: "POST" }
})
const changeProduct = (status: number, headers: Record<string, string>): Case => ({
  operation: "patch /products/{id}",
  path: `/products/${product.id}`,
  status,
  init: { method: "PATCH", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ ai_summary: "Changed." }) }
})

/** A request that came through a proxy (TRUST_PROXY is 0 here: the client is still the socket's address). */
const throughProxy = { "x-forwarded-for": "192.0.2.1" }

/** The key of the agent the first registration case made: `{key}` in a header is replaced by it. */
const asAgent = { authorization: "Bearer {key}" }

/** Success and error paths of every operation. `{etag}` is replaced by the tag the previous 200 of the same path carried. */
const cases = (): ReadonlyArray<Case> => [
  get("/products/{id}", `/products/${product.id}`, 200),
  get("/products/{id}", `/products/${product.id}`, 304, { "if-none-match": "{etag}" }),
  get("/products/{id}", "/products/pulse-board", 400),
  get("/products/{id}", "/products/00000000-0000-4000-8000-000000000000", 404),
  get("/products/{id}", `/products/${removed.id}`, 410),
  get("/products/{id}/agent-card", `/products/${product.id}/agent-card`, 200),
  get("/products/{id}/agent-card", `/products/${product.id}/agent-card`, 304, { "if-none-match": "{etag}" }),
  get("/products/{id}/agent-card", "/products/nope/agent-card", 400),
  get("/products/{id}/agent-card", "/products/00000000-0000-4000-8000-000000000000/agent-card", 404),
  get("/products/{id}/agent-card", `/products/${removed.id}/agent-card`, 410),
  get("/products/{id}/versions", `/products/${product.id}/versions?limit=1`, 200),
  get("/products/{id}/versions", `/products/${product.id}/versions?limit=1`, 304, { "if-none-match": "{etag}" }),
  get("/products/{id}/versions", `/products/${product.id}/versions?before=0`, 400),
  get("/products/{id}/versions", "/products/00000000-0000-4000-8000-000000000000/versions", 404),
  get("/products/{id}/versions", `/products/${removed.id}/versions`, 410),
  get("/products/{id}/versions/{version}", `/products/${product.id}/versions/1`, 200),
  get("/products/{id}/versions/{version}", `/products/${product.id}/versions/1`, 304, { "if-none-match": "{etag}" }),
  get("/products/{id}/versions/{version}", `/products/${product.id}/versions/x`, 400),
  get("/products/{id}/versions/{version}", `/products/${product.id}/versions/999`, 404),
  get("/products/{id}/versions/{version}", `/products/${removed.id}/versions/1`, 410),
  claimDomain({ domain: "conformance.example" }, 201),
  claimDomain({ domain: "localhost" }, 400),
  claimDomain("domain=conformance.example", 415, { "content-type": "text/plain" }),
  // {publisher}: the claim the first 201 made; nothing serves its proof.
  verifyClaim("{publisher}", 422),
  verifyClaim("00000000-0000-4000-8000-000000000000", 404),
  { operation: "get /publishers/{publisher_id}", path: "/publishers/{publisher}", status: 200 },
  get("/publishers/{publisher_id}", "/publishers/00000000-0000-4000-8000-000000000000", 404),
  get("/publishers/{publisher_id}", "/publishers/nope", 400),
  verifyClaim("not-a-claim", 400),
  {
    operation: "post /products",
    path: "/products",
    status: 401,
    init: {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        ...Object.fromEntries(CATALOG_FIELD_NAMES.map((f) => [f, product.content[f]])),
        trust_signals: { website: product.content.website },
        name: "Unclaimed"
      })
    }
  },
  {
    operation: "post /entities/{slug}/problems/{problem_id}/replies",
    path: `/entities/${product.id}/problems/lim-1/replies`,
    status: 401,
    init: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "Unclaimed." }) }
  },
  changeProduct(401, { "if-match": "*" }),
  changeProduct(401, { "if-match": "*", authorization: "Bearer pdp_nobody" }),
  get("/products", "/products?limit=5", 200),
  get("/products", "/products?limit=5", 304, { "if-none-match": "{etag}" }),
  get("/products", "/products?q=invoice&sort=name&limit=2", 200, { "accept-encoding": "br" }),
  get("/products", "/products?limit=0&sort=price&cursor=%25", 400),
  get("/entities/{slug}", `/entities/${product.id}?format=agent`, 200),
  get("/entities/{slug}", `/entities/${product.id}?format=agent`, 304, { "if-none-match": "{etag}" }),
  get("/entities/{slug}", `/entities/${product.id}`, 200, { "accept-encoding": "gzip" }),
  get("/entities/{slug}", `/entities/${product.id}?format=xml`, 400),
  get("/entities/{slug}", "/entities/Not%20A%20Slug", 400),
  get("/entities/{slug}", "/entities/no-such-product", 404),
  get("/entities/{slug}", `/entities/${removed.id}`, 410),
  get("/entities/{slug}/problems", `/entities/${product.id}/problems?limit=2`, 200),
  get("/entities/{slug}/problems", `/entities/${product.id}/problems?limit=2`, 304, { "if-none-match": "{etag}" }),
  get("/entities/{slug}/problems", `/entities/${product.id}/problems?cursor=bogus`, 400),
  get("/entities/{slug}/problems", "/entities/no-such-product/problems", 404),
  get("/entities/{slug}/problems", `/entities/${removed.id}/problems`, 410),
  // Registrations seen through a proxy: held to the per-address budget (a developer on the server's own machine is not:
  // docs/operations.md, "A local developer").
  register({ name: "conformance" }, 201, throughProxy),
  register({ name: " ", role: "admin" }, 400),
  register({ name: "x" }, 415, { "content-type": "text/plain" }),
  register({ name: "x".repeat(20_000) }, 413),
  register({ name: "second" }, 201, throughProxy),
  register({ name: "third" }, 429, throughProxy),
  vote({ entity_id: product.id }, 201, asAgent),
  vote({ entity_id: product.id }, 200, asAgent),
  vote({ entity_id: product.id }, 401, { authorization: `Bearer pdk_${"Z".repeat(43)}` }),
  vote({ entity_id: product.id, direction: "sideways", score: 5 }, 400),
  vote('{"entity_id":', 400),
  vote({ entity_id: "00000000-0000-4000-8000-000000000000" }, 404),
  vote({ entity_id: removed.id }, 410),
  vote({ entity_id: product.id, direction: "down", reason: "x".repeat(20_000) }, 413),
  vote({ entity_id: product.id }, 415, { "content-type": "text/plain" }),
  // A compressed body: its 415 says which coding a body may have (Accept-Encoding: identity), as documented.
  vote({ entity_id: product.id }, 415, { "content-encoding": "gzip" }),
  // The agent's third vote in a minute (the limit is 2).
  vote({ entity_id: limited.id }, 429, asAgent),
  get("/categories", "/categories", 200),
  get("/categories", "/categories", 304, { "if-none-match": "{etag}" }),
  get("/", "/", 200, { "accept-encoding": "gzip, br" }),
  get("/", "/", 304, { "if-none-match": "{etag}" }),
  get("/llms.txt", "/llms.txt", 200),
  get("/llms.txt", "/llms.txt", 304, { "if-none-match": "{etag}" }),
  get("/.well-known/agent-card.json", "/.well-known/agent-card.json", 200),
  get("/.well-known/agent-card.json", "/.well-known/agent-card.json", 304, { "if-none-match": "{etag}" }),
  get("/healthz", "/healthz", 200),
  get("/metrics", "/metrics", 200),
  get("/readyz", "/readyz", 200)
]

const pointer = (...parts: ReadonlyArray<string>) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")

const makeChecker = (document: OpenApiDocument) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  ajv.addSchema(document, "openapi")
  const resolveHeader = (header: HeaderObject): HeaderObject =>
    typeof header.$ref === "string" ? document.components.headers[header.$ref.split("/").at(-1)!]! : header

  /** What is wrong with `reply` as an answer of `operation`; empty when nothing is. */
  return (operation: string, reply: Reply): Array<string> => {
    const [method, path] = operation.split(" ") as [string, string]
    const responses = document.paths[path]?.[method]?.responses
    if (responses === undefined) return [`${operation} is not in the document`]
    const status = String(reply.status)
    const key =
      status in responses ? status : `${status[0]}XX` in responses ? `${status[0]}XX` : "default" in responses ? "default" : undefined
    if (key === undefined) return [`${status} is not documented for ${operation}`]
    const documented = responses[key]!
    const problems: Array<string> = []
    for (const [name, spec] of Object.entries(documented.headers ?? {})) {
      const header = resolveHeader(spec)
      const value = reply.headers.get(name)
      if (value === null) {
        if (header.required === true) problems.push(`required header ${name} is missing`)
        continue
      }
      const validate = ajv.compile(
        header.schema.type === "integer" ? { ...header.schema, type: "string", pattern: "^[0-9]+$" } : header.schema
      )
      if (!validate(value)) problems.push(`header ${name}: ${ajv.errorsText(validate.errors)}`)
    }
    const content = documented.content
    const contentType = reply.headers.get("content-type")?.split(";")[0]
    if (content === undefined) {
      if (reply.text.length > 0) problems.push(`${status} documents no body, got ${reply.text.length} bytes`)
      return problems
    }
    if (contentType === undefined || !(contentType in content)) {
      return [...problems, `content type ${contentType} is not documented for ${status} (${Object.keys(content).join(", ")})`]
    }
    const schemaRef = `openapi#/${pointer("paths", path, method, "responses", key, "content", contentType, "schema")}`
    const body = contentType.endsWith("json") ? JSON.parse(reply.text) : reply.text
    const validate = ajv.compile({ $ref: schemaRef })
    if (!validate(body)) problems.push(`body: ${ajv.errorsText(validate.errors)}`)
    return problems
  }
}

const variant = storeVariants()[0]!

describe(`the OpenAPI document and the server agree (${variant.name})`, () => {
  const stores = variant.stores()
  const Removed = Layer.effectDiscard(CatalogStore.use((catalog) => catalog.remove([removed.id])))
  // The removal runs after the server seeded the sample catalog (a seed would restore the product).
  layer(
    Removed.pipe(
      Layer.provideMerge(
        serverLayer(stores, { votesPerVoter: 2, votesPerAddress: 1000, registrationsPerNetwork: { "v6/64": 2, "v4/32": 2 } })
      ),
      Layer.provideMerge(stores)
    ),
    {
      timeout: "120 seconds",
      excludeTestServices: true
    }
  )((it) => {
    it.effect("every operation, on its success and error paths, answers as the document says", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const document = (yield* request(`${base}/openapi.json`)).json as OpenApiDocument
        const check = makeChecker(document)
        const etags = new Map<string, string>()
        let key = ""
        let publisher = ""
        const failures: Array<string> = []
        const requested = new Set<string>()
        for (const c of cases()) {
          const headers = Object.fromEntries(
            Object.entries((c.init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [
              k,
              v === "{etag}" ? (etags.get(c.path) ?? "") : v.replace("{key}", key)
            ])
          )
          const reply = yield* request(`${base}${c.path.replace("{publisher}", publisher)}`, { ...c.init, headers })
          requested.add(c.operation)
          if (reply.status === 200 && reply.headers.get("etag")) etags.set(c.path, reply.headers.get("etag")!)
          if (c.path === "/agents" && reply.status === 201 && key === "") key = (reply.json as { api_key: string }).api_key
          if (c.path === "/publishers" && reply.status === 201 && publisher === "")
            publisher = (reply.json as { publisher_id: string }).publisher_id
          if (reply.status !== c.status)
            failures.push(`${c.operation} ${c.path}: expected ${c.status}, got ${reply.status} ${reply.text.slice(0, 200)}`)
          for (const problem of check(c.operation, reply)) failures.push(`${c.operation} ${c.path} (${reply.status}): ${problem}`)
        }
        expect(failures).toEqual([])
        // The other way round: every documented operation was requested.
        const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
        expect(documented.filter((op) => !requested.has(op))).toEqual([])

        // While the server drains, every operation still answers as documented, closing its connection,
        // and readiness is a documented 503 with Retry-After.
        yield* (yield* Lifecycle).startDraining
        for (const operation of documented) {
          const example = cases().find((c) => c.operation === operation)!
          const reply = yield* request(`${base}${example.path}`, example.init)
          expect(reply.headers.get("connection"), operation).toBe("close")
          expect(check(operation, reply), operation).toEqual([])
        }
        const ready = yield* request(`${base}/readyz`)
        expect(ready.status).toBe(503)
        expect(check("get /readyz", ready)).toEqual([])
      })
    )
  })
})

describe("paths the document does not list are not served", () => {
  const stores = storeVariants()[0]!.stores()
  layer(serverLayer(stores), { timeout: "120 seconds", excludeTestServices: true })((it) => {
    it.effect("near misses are 404 problems; a documented path under another method is 405 with Allow", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        for (const probe of [
          "/product",
          "/products/x/y/z",
          "/entity/x",
          "/votes",
          "/category",
          "/health",
          `/entities/${product.id}/problem`
        ]) {
          const reply = yield* request(`${base}${probe}`)
          expect(reply.status, probe).toBe(404)
          expect(reply.headers.get("content-type"), probe).toMatch(/^application\/problem\+json/)
        }
        const wrongMethods: ReadonlyArray<readonly [string, string, string]> = [
          // Every GET is also served as HEAD.
          ["DELETE", `/products/${product.id}`, "GET, PATCH, HEAD"],
          ["PUT", "/vote", "POST"],
          ["PUT", "/products", "GET, POST, HEAD"],
          ["PATCH", "/categories", "GET, HEAD"],
          // Paths served beside the API definition: the docs page's icon, the A2A interfaces, MCP.
          ["DELETE", "/favicon.ico", "GET, HEAD"],
          ["GET", "/a2a/jsonrpc", "POST"],
          ["PUT", "/mcp", "GET, POST, DELETE"]
        ]
        for (const [method, path, allow] of wrongMethods) {
          const reply = yield* request(`${base}${path}`, { method })
          expect(reply.status, `${method} ${path}`).toBe(405)
          expect(reply.headers.get("allow"), `${method} ${path}`).toBe(allow)
        }
      })
    )
  })
})
