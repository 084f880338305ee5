/**
 * A refusal is one thing, whichever door it came through (packages/edge/src/refusals.ts): HTTP answers it with a
 * problem, MCP with a tool error, A2A with its error, all in the table's words. Each door only says how to do what the words advise.
 * Through real HTTP, the official MCP SDK client and the A2A SDK's client, against one server.
 */
import { describe, expect, layer } from "@effect/vitest"
import { SendMessageRequest } from "@a2a-js/sdk"
import { ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { bodyOf, request } from "./http.ts"
import { connectMcp } from "./mcpClient.ts"

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> }

/** The MCP tool's error, in words. */
const mcpRefusal = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<ToolResult>).pipe(
    Effect.map((result) => ({ isError: result.isError === true, text: result.content.map((c) => c.text ?? "").join("\n") }))
  )

/** The error the A2A SDK's client throws when the agent refuses a data part. */
const a2aRefusal = (base: string, data: Record<string, unknown>) =>
  Effect.flip(
    Effect.tryPromise({
      try: async () => {
        const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["JSONRPC"] })
        const client = await new ClientFactory(options).createFromUrl(base)
        return client.sendMessage(
          SendMessageRequest.fromJSON({ message: { messageId: `one-refusal-${Math.random()}`, role: "ROLE_USER", parts: [{ data }] } })
        )
      },
      catch: (error) => error as Error
    })
  )

describe("one refusal at every door", () => {
  layer(serverLayer(memoryStores()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
    it.effect("a cursor of another listing: HTTP's 400 names the field, MCP's and A2A's errors say the same words", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        // A cursor this service wrote, for the catalog's listing: not one of a search's pages.
        const cursor = bodyOf<{ next_cursor: string }>(yield* request(`${base}/products?limit=1`)).next_cursor
        const http = yield* request(`${base}/products?q=notes&cursor=${encodeURIComponent(cursor)}`)
        expect(http.status).toBe(400)
        const problem = bodyOf<{ detail: string; errors: Array<{ path: Array<string> }> }>(http)
        expect(problem.errors.map((e) => e.path)).toEqual([["query", "cursor"]])
        expect(problem.detail).toMatch(/^Invalid cursor: .+\. Start again without a cursor\.$/)
        const client = yield* connectMcp(base)
        const mcp = yield* mcpRefusal(client, "search_products", { q: "notes", cursor })
        expect(mcp).toEqual({ isError: true, text: problem.detail })
        const a2a = yield* a2aRefusal(base, { skill: "search", q: "notes", cursor })
        expect(a2a.message).toContain(problem.detail)
      })
    )

    it.effect("a product nobody has: the same sentence at every door, each naming its own way to search", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const http = yield* request(`${base}/entities/no-such-product-anywhere`)
        expect(http.status).toBe(404)
        const detail = bodyOf<{ detail: string }>(http).detail
        const said = 'No product has the id or slug "no-such-product-anywhere". Find products with'
        expect(detail).toBe(`${said} GET /products?q=<words>.`)
        const client = yield* connectMcp(base)
        const mcp = yield* mcpRefusal(client, "get_product", { entity_id: "no-such-product-anywhere" })
        expect(mcp).toEqual({ isError: true, text: `${said} search_products.` })
        const a2a = yield* a2aRefusal(base, { skill: "read-product", entity_id: "no-such-product-anywhere" })
        expect(a2a.message).toContain(said)
      })
    )
  })
})
