import { describe, expect, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"
import { sampleCatalog } from "@productdir/testkit/sample"
import { baseUrl, serverLayer, storeVariants } from "./harness.ts"
import { bodyOf, postJson, request } from "./http.ts"

const ALLOWED = "https://agents.example"

/** An MCP session with the official SDK client over real HTTP; closed with the test's scope. */
const connect = (base: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "productdir-test", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> }

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<ToolResult>)

const textOf = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("\n")

const sample = sampleCatalog()

for (const variant of storeVariants()) {
  describe(`MCP server on ${variant.name}`, () => {
    layer(serverLayer(variant.stores(), { mcpAllowedOrigins: [ALLOWED] }), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("an agent with only the base URL finds /mcp, connects and lists the tools", () =>
        Effect.gen(function*() {
          const base = yield* baseUrl
          const index = bodyOf<{ mcp?: string; paths: Array<{ path: string }> }>(yield* request(`${base}/`))
          expect(index.mcp).toBe("/mcp")
          expect((yield* request(`${base}/llms.txt`)).text).toContain("/mcp")
          const client = yield* connect(base)
          expect(client.getServerVersion()?.name).toBe("productdir")
          const { tools } = yield* Effect.promise(() => client.listTools())
          expect(tools.map((t) => t.name).sort()).toEqual(["get_problems", "get_product", "list_categories", "search_products", "vote"])
          const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
          expect(Object.keys(byName["search_products"]!.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["q", "category", "limit", "cursor"]))
          expect(byName["vote"]!.inputSchema.required).toEqual(["entity_id"])
          expect(byName["get_product"]!.outputSchema).toBeDefined()
          expect(byName["search_products"]!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
          expect(byName["vote"]!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true })
          for (const tool of tools) expect(tool.description?.length, tool.name).toBeGreaterThan(40)
        }).pipe(Effect.scoped))

      it.effect("search, read a product and its problems, list categories", () =>
        Effect.gen(function*() {
          const base = yield* baseUrl
          const client = yield* connect(base)
          const target = sample[5]!
          const found = yield* call(client, "search_products", { q: target.content.name.split(" ")[0]!, limit: 10 })
          expect(found.isError).toBeFalsy()
          const items = (found.structuredContent as { items: Array<{ id: string; slug: string }> }).items
          const hit = items.find((i) => i.id === target.id)!
          expect(hit).toBeDefined()
          const view = yield* call(client, "get_product", { entity: hit.slug })
          expect(view.isError).toBeFalsy()
          expect(view.structuredContent).toMatchObject({ id: target.id, name: target.content.name })
          expect(JSON.parse(textOf(view))).toMatchObject({ id: target.id })
          const problems = yield* call(client, "get_problems", { entity: target.id, limit: 2 })
          expect((problems.structuredContent as { entity: { id: string } }).entity.id).toBe(target.id)
          const categories = yield* call(client, "list_categories", {})
          const list = (categories.structuredContent as { categories: Array<{ count: number }> }).categories
          expect(list.reduce((n, c) => n + c.count, 0)).toBe(sample.length)
        }).pipe(Effect.scoped))

      it.effect("a vote through MCP changes the counters the detail record shows; a down vote's reason becomes a problem", () =>
        Effect.gen(function*() {
          const base = yield* baseUrl
          const client = yield* connect(base)
          const target = sample[6]!
          const before = bodyOf<{ trust: { trust_up: number; trust_down: number } }>(yield* request(`${base}/products/${target.id}`)).trust
          const voted = yield* call(client, "vote", { entity_id: target.id, direction: "down", voter_id: "mcp-agent", reason: "Webhooks arrive out of order" })
          expect(voted.isError, textOf(voted)).toBeFalsy()
          expect(voted.structuredContent).toMatchObject({ entity_id: target.id, status: "recorded", direction: "down" })
          const after = bodyOf<{ trust: { trust_up: number; trust_down: number } }>(yield* request(`${base}/products/${target.id}`)).trust
          expect(after).toMatchObject({ trust_up: before.trust_up, trust_down: before.trust_down + 1 })
          const again = yield* call(client, "vote", { entity_id: target.id, direction: "down", voter_id: "mcp-agent" })
          expect((again.structuredContent as { status: string }).status).toBe("unchanged")
          const problems = yield* call(client, "get_problems", { entity: target.id })
          expect(textOf(problems)).toContain("Webhooks arrive out of order")
          // The same rules as POST /vote: the HTTP API sees the MCP vote as this voter's.
          const http = yield* postJson(`${base}/vote`, { entity_id: target.id, direction: "down", voter_id: "mcp-agent" })
          expect(bodyOf<{ status: string }>(http).status).toBe("unchanged")
        }).pipe(Effect.scoped))

      it.effect("bad arguments and unknown products are tool errors that say what is wrong", () =>
        Effect.gen(function*() {
          const base = yield* baseUrl
          const client = yield* connect(base)
          const unknown = yield* call(client, "get_product", { entity: "no-such-product" })
          expect(unknown.isError).toBe(true)
          expect(textOf(unknown)).toContain("No product has the id or slug \"no-such-product\"")
          const badLimit = yield* call(client, "search_products", { limit: 1000 })
          expect(badLimit.isError).toBe(true)
          expect(textOf(badLimit)).toContain("limit")
          const badDirection = yield* call(client, "vote", { entity_id: sample[0]!.id, direction: "sideways" })
          expect(badDirection.isError).toBe(true)
          expect(textOf(badDirection)).toContain("direction")
          const missing = yield* call(client, "get_product", {})
          expect(missing.isError).toBe(true)
          expect(textOf(missing)).toContain("entity")
          const reasonOnUp = yield* call(client, "vote", { entity_id: sample[0]!.id, reason: "meh" })
          expect(reasonOnUp.isError).toBe(true)
          expect(textOf(reasonOnUp)).toContain("reason")
          // The session is still usable after all of that.
          expect((yield* call(client, "list_categories", {})).isError).toBeFalsy()
        }).pipe(Effect.scoped))

      it.effect("browser requests from an origin that is not allowed are refused", () =>
        Effect.gen(function*() {
          const base = yield* baseUrl
          const init = {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "browser", version: "1" } }
          }
          const headers = { accept: "application/json, text/event-stream" }
          const refused = yield* postJson(`${base}/mcp`, init, { ...headers, origin: "https://evil.example" })
          expect(refused.status).toBe(403)
          const allowed = yield* postJson(`${base}/mcp`, init, { ...headers, origin: ALLOWED })
          expect(allowed.status).toBe(200)
        }))
    })
  })
}
