import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, serverLayer, storeVariants } from "./harness.ts"
import { bodyOf, postJson, request } from "./http.ts"
import { connectMcp } from "./mcpClient.ts"

const ALLOWED = "https://agents.example"
/** A browser extension's origin: opaque to the URL standard, allowed as written. */
const EXTENSION = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"

/** An MCP session with the official SDK client over real HTTP; closed with the test's scope. */
const connect = (base: string) => connectMcp(base)

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> }

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<ToolResult>)

const textOf = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("\n")

/** The URIs of every notifications/resources/updated the client gets, in order. */
const updates = (client: Client): Array<string> => {
  const seen: Array<string> = []
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    seen.push(notification.params.uri)
  })
  return seen
}

/** Waits until `check` holds (a notification arrived), for at most a generous deadline. */
const eventually = (check: () => boolean, what: string) =>
  Effect.promise(async () => {
    const deadline = Date.now() + 15_000
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`not seen within 15 s: ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })

/** A refusal from the client's request: its JSON-RPC code and message. */
const refusalOf = <A>(promise: () => Promise<A>) =>
  Effect.promise(() =>
    promise().then(
      () => undefined,
      (error: { code?: number; message?: string }) => error
    )
  )

const sample = sampleCatalog()

/** Every `pattern` in a JSON Schema (or a document holding schemas), at any depth. */
const patternsOf = (value: unknown): Array<string> =>
  typeof value !== "object" || value === null
    ? []
    : Object.entries(value).flatMap(([key, inner]) => (key === "pattern" && typeof inner === "string" ? [inner] : patternsOf(inner)))

reportLeftOut("MCP server", storesLeftOut())
for (const variant of storeVariants()) {
  describe(`MCP server on ${variant.name}`, () => {
    layer(serverLayer(variant.stores(), { mcpAllowedOrigins: [ALLOWED, EXTENSION] }), {
      timeout: "120 seconds",
      excludeTestServices: true
    })((it) => {
      it.effect("an agent with only the base URL finds /mcp, connects and lists the tools", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const index = bodyOf<{ mcp?: string; paths: Array<{ path: string }> }>(yield* request(`${base}/`))
          expect(index.mcp).toBe("/mcp")
          expect((yield* request(`${base}/llms.txt`)).text).toContain("/mcp")
          const client = yield* connect(base)
          expect(client.getServerVersion()?.name).toBe("productdir")
          const { tools } = yield* Effect.promise(() => client.listTools())
          expect(tools.map((t) => t.name).sort()).toEqual(["get_problems", "get_product", "list_categories", "search_products", "vote"])
          const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
          // Every list is one page: a cursor is none this server issued, and is refused as invalid params, not ignored.
          for (const list of [
            () => client.listTools({ cursor: "zzz" }) as Promise<unknown>,
            () => client.listResources({ cursor: "zzz" })
          ]) {
            const refused = yield* refusalOf(list)
            expect(refused?.code).toBe(-32602)
            expect(refused?.message).toContain("not one this server issued")
          }
          expect(Object.keys(byName.search_products!.inputSchema.properties ?? {})).toEqual(
            expect.arrayContaining(["q", "category", "limit", "cursor"])
          )
          expect(byName.vote!.inputSchema.required).toEqual(["entity_id"])
          // A field a model sees is one it fills in: the vote's arguments are a ballot, with no voter_id to invent.
          expect(Object.keys(byName.vote!.inputSchema.properties ?? {}).sort()).toEqual(["direction", "entity_id", "reason"])
          expect(byName.get_product!.outputSchema).toBeDefined()
          for (const name of ["search_products", "get_product", "get_problems", "list_categories"]) {
            expect(byName[name]!.annotations, name).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true })
          }
          // One name for the product across tools, as in POST /vote.
          for (const name of ["get_product", "get_problems", "vote"])
            expect(byName[name]!.inputSchema.required, name).toContain("entity_id")
          expect(byName.vote!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true })
          for (const tool of tools) expect(tool.description?.length, tool.name).toBeGreaterThan(40)
          // Each tool's schema says it takes nothing else, and search is described in the words of the OpenAPI document.
          for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false)
          const openapi = bodyOf<{
            paths: Record<
              string,
              {
                get?: {
                  description?: string
                  parameters?: Array<{ name: string; description?: string; schema?: { description?: string } }>
                }
              }
            >
          }>(yield* request(`${base}/openapi.json`))
          const listing = openapi.paths["/products"]!.get!
          const properties = byName.search_products!.inputSchema.properties as Record<string, { description?: string }>
          for (const name of ["q", "category"]) {
            const parameter = listing.parameters!.find((p) => p.name === name)!
            expect(properties[name]!.description, name).toBe(parameter.description ?? parameter.schema?.description)
          }
          expect(byName.search_products!.description).toContain(listing.description)
          expect(byName.search_products!.description).toContain("best match first")
          // Every pattern a client's validator reads keeps to JSON Schema's portable subset: no \p{…} classes, which
          // Python's re refuses (the Python SDK checks each result against its tool's output schema, and failed
          // every get_product), and each one reads as a regular expression without JavaScript's unicode flag.
          const patterns = [
            ...tools.flatMap((tool) => [...patternsOf(tool.inputSchema), ...patternsOf(tool.outputSchema)]),
            ...patternsOf(openapi)
          ]
          expect(patterns.length).toBeGreaterThan(5)
          for (const pattern of new Set(patterns)) {
            expect(pattern, pattern).not.toMatch(/\\[pP]\{/)
            expect(() => new RegExp(pattern), pattern).not.toThrow()
          }
        }).pipe(Effect.scoped)
      )

      it.effect("params that do not decode are refused naming each wrong field, not with a bare 'Invalid method parameters'", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const headers = { accept: "application/json, text/event-stream" }
          const clientInfo = { name: "x", version: "1" }
          for (const [params, fields] of [
            [{ capabilities: {}, clientInfo }, ["protocolVersion"]],
            [{ protocolVersion: 5, capabilities: {}, clientInfo }, ["protocolVersion"]],
            [{ protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { version: "1" } }, ["clientInfo.name"]],
            [{ capabilities: 3, clientInfo: {} }, ["protocolVersion", "capabilities", "clientInfo.name", "clientInfo.version"]]
          ] as const) {
            const reply = yield* postJson(`${base}/mcp`, { jsonrpc: "2.0", id: 1, method: "initialize", params }, headers)
            const { error } = bodyOf<{ error: { code: number; message: string } }>(reply)
            expect(error.code, JSON.stringify(params)).toBe(-32602)
            for (const field of fields) expect(error.message, JSON.stringify(params)).toContain(`params.${field}`)
          }
        })
      )

      it.effect("search, read a product and its problems, list categories", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* connect(base)
          const target = sample[5]!
          const found = yield* call(client, "search_products", { q: target.content.name.split(" ")[0]!, limit: 10 })
          expect(found.isError).toBeFalsy()
          const items = (found.structuredContent as { items: Array<{ id: string; slug: string }> }).items
          const hit = items.find((i) => i.id === target.id)!
          expect(hit).toBeDefined()
          const view = yield* call(client, "get_product", { entity_id: hit.slug })
          expect(view.isError).toBeFalsy()
          expect(view.structuredContent).toMatchObject({ id: target.id, name: target.content.name })
          // The result as JSON text, then its problems in the directory's prose (voters' words only quoted).
          expect(JSON.parse(view.content[0]!.text!)).toMatchObject({ id: target.id })
          expect(view.content[1]!.text).toMatch(new RegExp(`known problems? of ${target.content.name}|No known problems of`))
          const problems = yield* call(client, "get_problems", { entity_id: target.id, limit: 2 })
          expect((problems.structuredContent as { entity: { id: string } }).entity.id).toBe(target.id)
          expect(JSON.parse(problems.content[0]!.text!)).toEqual(problems.structuredContent)
          const categories = yield* call(client, "list_categories", {})
          const list = (categories.structuredContent as { categories: Array<{ count: number }> }).categories
          expect(list.reduce((n, c) => n + c.count, 0)).toBe(sample.length)
        }).pipe(Effect.scoped)
      )

      it.effect("MCP reads of a product go through the read cache HTTP reads use: one load for both doors", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const metric = (name: string) =>
            Effect.map(request(`${base}/metrics`), (reply) =>
              Number(/^(\S+) (\S+)$/m.exec(reply.text.split("\n").find((l) => l.startsWith(`${name} `)) ?? "")?.[2])
            )
          const product = sample[11]!
          const client = yield* connect(base)
          const misses = yield* metric("productdir_read_cache_misses_total")
          const viaTool = yield* call(client, "get_product", { entity_id: product.id })
          expect(viaTool.isError ?? false).toBe(false)
          expect(yield* metric("productdir_read_cache_misses_total")).toBe(misses + 1)
          const hits = yield* metric("productdir_read_cache_hits_total")
          const viaResource = yield* Effect.promise(() => client.readResource({ uri: `productdir://products/${product.id}` }))
          const viaHttp = yield* request(`${base}/entities/${product.id}?format=agent`)
          expect(viaHttp.status).toBe(200)
          // The resource and the HTTP read were both hits of the entry the tool's read loaded.
          expect(yield* metric("productdir_read_cache_misses_total")).toBe(misses + 1)
          expect(yield* metric("productdir_read_cache_hits_total")).toBe(hits + 2)
          const fromResource = JSON.parse((viaResource.contents[0] as { text: string }).text) as { id: string; trust: unknown }
          expect(fromResource.id).toBe((viaHttp.json as { id: string }).id)
          expect(viaTool.structuredContent?.trust).toEqual((viaHttp.json as { trust: unknown }).trust)
        }).pipe(Effect.scoped)
      )

      it.effect("a slug in another case names the same product, in a tool's arguments and in a resource's URI", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const product = sample[12]!
          const slug = (yield* request(`${base}/products/${product.id}/agent-card`)).json as { slug: string }
          const client = yield* connect(base)
          const viaTool = yield* call(client, "get_product", { entity_id: slug.slug.toUpperCase() })
          expect(viaTool.isError ?? false).toBe(false)
          expect((viaTool.structuredContent as { id: string }).id).toBe(product.id)
          const viaResource = yield* Effect.promise(() => client.readResource({ uri: `productdir://products/${slug.slug.toUpperCase()}` }))
          expect((JSON.parse((viaResource.contents[0] as { text: string }).text) as { id: string }).id).toBe(product.id)
        }).pipe(Effect.scoped)
      )

      it.effect("a vote through MCP changes the counters the detail record shows; a down vote's reason becomes a problem", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* connect(base)
          const target = sample[6]!
          const before = bodyOf<{ trust: { trust_up: number; trust_down: number } }>(yield* request(`${base}/products/${target.id}`)).trust
          const voted = yield* call(client, "vote", {
            entity_id: target.id,
            direction: "down",
            reason: "Webhooks arrive out of order"
          })
          expect(voted.isError, textOf(voted)).toBeFalsy()
          expect(voted.structuredContent).toMatchObject({ entity_id: target.id, status: "recorded", direction: "down" })
          const after = bodyOf<{ trust: { trust_up: number; trust_down: number } }>(yield* request(`${base}/products/${target.id}`)).trust
          expect(after).toMatchObject({ trust_up: before.trust_up, trust_down: before.trust_down + 1 })
          const again = yield* call(client, "vote", { entity_id: target.id, direction: "down" })
          expect((again.structuredContent as { status: string }).status).toBe("unchanged")
          const problems = yield* call(client, "get_problems", { entity_id: target.id })
          expect(textOf(problems)).toContain("Webhooks arrive out of order")
          // The same rules as POST /vote: without a key, both count for this client's address, as one voter.
          const http = yield* postJson(`${base}/vote`, { entity_id: target.id, direction: "down" })
          expect(bodyOf<{ status: string }>(http).status).toBe("unchanged")
        }).pipe(Effect.scoped)
      )

      it.effect("products are resources: a template, slugs completed by prefix, search results that link to them", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* connect(base)
          const { resourceTemplates } = yield* Effect.promise(() => client.listResourceTemplates())
          expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("productdir://products/{slug}")
          const target = sample[0]!
          const found = yield* call(client, "search_products", { q: target.content.name, limit: 5 })
          const items = (found.structuredContent as { items: Array<{ id: string; slug: string }> }).items
          const hit = items.find((i) => i.id === target.id)!
          const links = (found.content as Array<{ type: string; uri?: string; name?: string; mimeType?: string }>).filter(
            (c) => c.type === "resource_link"
          )
          expect(links.map((l) => l.uri)).toEqual(items.map((i) => `productdir://products/${i.slug}`))
          const read = yield* Effect.promise(() => client.readResource({ uri: `productdir://products/${hit.slug}` }))
          const content = read.contents[0] as { uri: string; mimeType?: string; text?: string }
          expect(content.mimeType).toBe("application/json")
          const view = JSON.parse(content.text ?? "{}") as { id: string; links: { vote: { href: string } } }
          expect(view.id).toBe(target.id)
          // Links in a resource are absolute, as in tool results.
          expect(view.links.vote.href).toBe(`${base}/vote`)
          const prefix = hit.slug.slice(0, 3)
          const completed = yield* Effect.promise(() =>
            client.complete({
              ref: { type: "ref/resource", uri: "productdir://products/{slug}" },
              argument: { name: "slug", value: prefix }
            })
          )
          expect(completed.completion.values).toContain(hit.slug)
          for (const value of completed.completion.values) expect(value.startsWith(prefix)).toBe(true)
          expect(completed.completion).toMatchObject({ total: completed.completion.values.length, hasMore: false })
          // Everything: the first 20 slugs in order, the true count of them all, and that there are more.
          const all = yield* Effect.promise(() =>
            client.complete({ ref: { type: "ref/resource", uri: "productdir://products/{slug}" }, argument: { name: "slug", value: "" } })
          )
          expect(sample.length).toBeGreaterThan(20)
          expect(all.completion.values).toHaveLength(20)
          expect(all.completion.values).toEqual([...all.completion.values].sort())
          expect([all.completion.total, all.completion.hasMore]).toEqual([sample.length, true])
          const none = yield* Effect.promise(() =>
            client.complete({
              ref: { type: "ref/resource", uri: "productdir://products/{slug}" },
              argument: { name: "slug", value: "zzzz-none" }
            })
          )
          expect(none.completion.values).toEqual([])
          const unknownRef = yield* Effect.promise(() =>
            client.complete({ ref: { type: "ref/prompt", name: "no-such-prompt" }, argument: { name: "x", value: "a" } })
          )
          expect(unknownRef.completion.values).toEqual([])
          // An unknown resource is the protocol's -32002 (Resource not found), not an internal error.
          const missing = yield* Effect.promise(() =>
            client.readResource({ uri: "productdir://products/no-such-product" }).then(
              () => undefined,
              (error: { code?: number; message?: string }) => error
            )
          )
          expect(missing?.code).toBe(-32002)
          expect(missing?.message).toContain('No product has the id or slug "no-such-product"')
          expect((missing as { data?: { uri?: string } } | undefined)?.data?.uri).toBe("productdir://products/no-such-product")
          // URIs that could name no product (a NUL, broken percent-encoding, an underscore) are not found either: never
          // the store's refusal of the text as an internal error. (Upper case names the product: a test below.)
          for (const uri of ["productdir://products/a%00b", "productdir://products/%E0%A4", "productdir://products/TALLY_HOUSE"]) {
            for (const call of [() => client.readResource({ uri }), () => client.subscribeResource({ uri })]) {
              const refused = yield* Effect.promise(() =>
                call().then(
                  () => undefined,
                  (error: { code?: number; message?: string }) => error
                )
              )
              expect(refused?.code, uri).toBe(-32002)
            }
          }
          // A product's URI with something after its slug names no resource; the product itself is there.
          for (const uri of [
            "productdir://products/tallyhouse?x=1",
            "productdir://products/tallyhouse#f",
            "productdir://products/tallyhouse/"
          ]) {
            const refused = yield* Effect.promise(() =>
              client.readResource({ uri }).then(
                () => undefined,
                (error: { code?: number; message?: string }) => error
              )
            )
            expect(refused?.code, uri).toBe(-32002)
            expect(refused?.message, uri).not.toContain("No product has")
            expect(refused?.message, uri).toContain("nothing after it")
          }
        }).pipe(Effect.scoped)
      )

      it.effect("the newest revision, 2026-07-28, is served statelessly beside the session revisions", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }
          const rpc = (id: number, method: string, params: Record<string, unknown>, name?: string) =>
            postJson(
              `${base}/mcp`,
              { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } },
              {
                accept: "application/json, text/event-stream",
                "mcp-protocol-version": "2026-07-28",
                "mcp-method": method,
                ...(name === undefined ? {} : { "mcp-name": name })
              }
            )
          const discover = bodyOf<{
            result: { supportedVersions: Array<string>; capabilities: { resources?: { subscribe?: boolean; listChanged?: boolean } } }
          }>(yield* rpc(1, "server/discover", {}))
          expect(discover.result.supportedVersions).toEqual(expect.arrayContaining(["2026-07-28", "2025-11-25"]))
          // A product's changes are told to sessions, on their stream: a stateless client is offered no subscription it
          // would hear nothing on (and resources/subscribe is no method of this revision).
          expect(discover.result.capabilities.resources).toBeDefined()
          expect(discover.result.capabilities.resources?.subscribe).not.toBe(true)
          expect(discover.result.capabilities.resources?.listChanged).not.toBe(true)
          const found = bodyOf<{ result: { content: Array<{ type: string; uri?: string }> } }>(
            yield* rpc(2, "tools/call", { name: "search_products", arguments: { q: sample[0]!.content.name, limit: 3 } }, "search_products")
          )
          expect(found.result.content.some((c) => c.type === "resource_link" && c.uri?.startsWith("productdir://products/"))).toBe(true)
          const completed = bodyOf<{ result: { resultType: string; completion: { values: Array<string> } } }>(
            yield* rpc(3, "completion/complete", { ref: { type: "ref/prompt", name: "none" }, argument: { name: "a", value: "b" } })
          )
          expect(completed.result).toEqual({ resultType: "complete", completion: { values: [], total: 0, hasMore: false } })
          // An unknown resource is invalid params in this revision, which retired -32002 (SEP-2164), its URI the error's data;
          // a product's own URI reads.
          for (const uri of ["productdir://products/no-such-product", "productdir://products/a?b"]) {
            const missing = bodyOf<{ error: { code: number; message: string; data?: { uri?: string } } }>(
              yield* rpc(5, "resources/read", { uri }, uri)
            )
            expect([missing.error.code, missing.error.data?.uri], uri).toEqual([-32602, uri])
          }
          const read = bodyOf<{ result: { contents: Array<{ uri: string }> } }>(
            yield* rpc(6, "resources/read", { uri: "productdir://products/tallyhouse" }, "productdir://products/tallyhouse")
          )
          expect(read.result.contents[0]?.uri).toBe("productdir://products/tallyhouse")
          // An initialize sent with this revision's header still makes a session of the revision its body names,
          // and its capabilities are that session's: subscriptions included.
          const initialized = yield* postJson(
            `${base}/mcp`,
            {
              jsonrpc: "2.0",
              id: 7,
              method: "initialize",
              params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } }
            },
            { accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28" }
          )
          expect(initialized.headers.get("mcp-session-id")).toBeTruthy()
          const session = bodyOf<{ result: { protocolVersion: string; capabilities: { resources?: { subscribe?: boolean } } } }>(
            initialized
          )
          expect([session.result.protocolVersion, session.result.capabilities.resources?.subscribe]).toEqual(["2025-11-25", true])
          // A request without its metadata is told which keys it lacks.
          const bare = yield* postJson(
            `${base}/mcp`,
            { jsonrpc: "2.0", id: 4, method: "server/discover", params: {} },
            { accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" }
          )
          expect(bare.status).toBe(400)
          const said = bodyOf<{ error: { message: string } }>(bare).error.message
          expect(said).toContain("io.modelcontextprotocol/protocolVersion")
          expect(said).toContain("io.modelcontextprotocol/clientCapabilities")
        })
      )

      it.effect("bad arguments and unknown products are tool errors that say what is wrong", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* connect(base)
          const unknown = yield* call(client, "get_product", { entity_id: "no-such-product" })
          expect(unknown.isError).toBe(true)
          expect(textOf(unknown)).toContain('No product has the id or slug "no-such-product"')
          const badLimit = yield* call(client, "search_products", { limit: 1000 })
          expect(badLimit.isError).toBe(true)
          expect(textOf(badLimit)).toContain("limit")
          const badDirection = yield* call(client, "vote", { entity_id: sample[0]!.id, direction: "sideways" })
          expect(badDirection.isError).toBe(true)
          expect(textOf(badDirection)).toContain("direction")
          const missing = yield* call(client, "get_product", {})
          expect(missing.isError).toBe(true)
          expect(textOf(missing)).toContain("entity_id")
          const reasonOnUp = yield* call(client, "vote", { entity_id: sample[0]!.id, reason: "meh" })
          expect(reasonOnUp.isError).toBe(true)
          expect(textOf(reasonOnUp)).toContain("reason")
          // One vote request for both transports: a blank reason is refused over MCP as over HTTP.
          const blank = yield* call(client, "vote", { entity_id: sample[0]!.id, direction: "down", reason: "   " })
          expect(blank.isError).toBe(true)
          expect(textOf(blank)).toContain("reason")
          const overHttp = yield* postJson(`${base}/vote`, { entity_id: sample[0]!.id, direction: "down", reason: "   " })
          expect(overHttp.status).toBe(400)
          // An argument a tool does not have is an error that names it, on every tool (as POST /vote refuses it).
          const misspelt = yield* call(client, "search_products", { query: "invoice" })
          expect([misspelt.isError, textOf(misspelt)]).toEqual([true, expect.stringContaining("query")])
          const extra = yield* call(client, "vote", { entity_id: sample[0]!.id, direction: "up", score: 5 })
          expect([extra.isError, textOf(extra)]).toEqual([true, expect.stringContaining("score")])
          for (const [tool, args] of [
            ["get_product", { entity_id: sample[0]!.id, format: "agent" }],
            ["get_problems", { entity_id: sample[0]!.id, page: 2 }],
            ["list_categories", { filter: "a" }]
          ] as const) {
            const answer = yield* call(client, tool, args)
            expect([tool, answer.isError, textOf(answer)]).toEqual([tool, true, expect.stringContaining(Object.keys(args).at(-1)!)])
          }
          // Said in the words every door uses, not the schema library's ("Missing key", "Expected no excess property").
          const said = {
            missing: textOf(missing),
            direction: textOf(badDirection),
            misspelt: textOf(misspelt),
            extra: textOf(extra),
            limit: textOf(yield* call(client, "search_products", { limit: "5" })),
            ref: textOf(yield* call(client, "get_product", { entity_id: 123 })),
            // A rule between fields is named beside any other wrong field, as POST /vote names it.
            rule: textOf(yield* call(client, "vote", { entity_id: sample[0]!.id, direction: "up", reason: "x", extra: 1 })),
            // A tool that takes no arguments says so of each one sent.
            none: textOf(yield* call(client, "list_categories", { foo: 1 }))
          }
          expect(said.none).toContain("foo is not an argument of this tool")
          expect(said.rule).toContain("extra is not an argument of this tool")
          expect(said.rule).toContain('reason goes only with direction "down"')
          expect(said.missing).toContain("Invalid arguments for get_product: entity_id is required")
          expect(said.direction).toContain('direction must be "up" or "down"')
          expect(said.misspelt).toContain("query is not an argument of this tool")
          // Beside an unknown argument, the tool's own: the agent can send the call again right.
          expect(said.misspelt).toMatch(/This tool's arguments are q, .*limit/)
          expect(said.extra).toContain("This tool's arguments are entity_id, direction, reason.")
          expect(said.none).toContain("This tool takes no arguments.")
          expect(said.missing).not.toContain("This tool's arguments")
          expect(said.extra).toContain("score is not an argument of this tool")
          expect(said.limit).toContain("limit must be")
          expect(said.ref).toContain("entity_id must be")
          for (const [what, text] of Object.entries(said)) expect(text, what).not.toMatch(/Missing key|Expected|excess property|never/)
          // The session is still usable after all of that.
          expect((yield* call(client, "list_categories", {})).isError).toBeFalsy()
        }).pipe(Effect.scoped)
      )

      it.effect(
        "browser origins: its own and loopback ones and the listed ones are served; a foreign one is refused, naming MCP_ALLOWED_ORIGINS",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const init = {
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "browser", version: "1" } }
            }
            const headers = { accept: "application/json, text/event-stream" }
            for (const origin of [base, "http://localhost:5173", "http://[::1]:8080", ALLOWED, EXTENSION]) {
              // A browser asks first (CORS preflight), then reads the answer only if the server says this origin may.
              const asked = yield* request(`${base}/mcp`, {
                method: "OPTIONS",
                headers: {
                  origin,
                  "access-control-request-method": "POST",
                  "access-control-request-headers": "content-type, mcp-session-id"
                }
              })
              expect(asked.status, origin).toBe(204)
              expect(asked.headers.get("access-control-allow-origin"), origin).toBe(origin)
              expect(asked.headers.get("access-control-allow-methods")).toContain("POST")
              // Each header a client of every revision sends (2026-07-28 requires Mcp-Method and Mcp-Name), and a signed agent's.
              const allowed = (asked.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/\s*,\s*/)
              for (const name of ["mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name", "authorization", "signature-input"]) {
                expect(allowed, name).toContain(name)
              }
              expect(asked.headers.get("vary")).toContain("Origin")
              const served = yield* postJson(`${base}/mcp`, init, { ...headers, origin })
              expect(served.status, origin).toBe(200)
              expect(served.headers.get("access-control-allow-origin"), origin).toBe(origin)
              // The session's id is what the page must send back: exposed to it.
              expect(served.headers.get("mcp-session-id")).toBeTruthy()
              expect(served.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("mcp-session-id")
            }
            // Opaque origins (a file, a sandboxed frame, data:, another extension or webview) are all "null" to
            // the URL standard: none of them is the allowed extension, and none is a 500.
            for (const origin of [
              "https://evil.example",
              "file://",
              "null",
              "about:blank",
              "data:text/html,hi",
              "vscode-webview://0a1b2c3d",
              "chrome-extension://someoneelse"
            ]) {
              const refused = yield* postJson(`${base}/mcp`, init, { ...headers, origin })
              expect(refused.status, origin).toBe(403)
              expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/)
              expect(bodyOf<{ detail: string }>(refused).detail).toContain("MCP_ALLOWED_ORIGINS")
              expect(refused.headers.get("access-control-allow-origin")).toBeNull()
              for (const method of ["GET", "DELETE"]) {
                expect((yield* request(`${base}/mcp`, { method, headers: { origin } })).status, `${method} ${origin}`).toBe(403)
              }
              const refusedAsk = yield* request(`${base}/mcp`, {
                method: "OPTIONS",
                headers: { origin, "access-control-request-method": "POST" }
              })
              expect(refusedAsk.status, origin).toBe(403)
              expect(refusedAsk.headers.get("access-control-allow-origin")).toBeNull()
            }
            // Agents on servers send no Origin: nothing of CORS in their answers.
            const agent = yield* postJson(`${base}/mcp`, init, headers)
            expect(agent.status).toBe(200)
            expect(agent.headers.get("access-control-allow-origin")).toBeNull()
          })
      )

      it.effect("what the endpoint refuses says what to do; JSON-RPC errors carry no internal tags", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const streams = { accept: "application/json, text/event-stream" }
          const get = yield* request(`${base}/mcp`)
          expect(get.status).toBe(400)
          expect(bodyOf<{ detail: string }>(get).detail).toContain("MCP-Session-Id")
          const put = yield* request(`${base}/mcp`, { method: "PUT" })
          expect(put.status).toBe(405)
          expect(put.headers.get("allow")).toBe("GET, POST, DELETE")
          expect(bodyOf<{ detail: string }>(put).detail).toContain("POST")
          const notAcceptable = yield* postJson(`${base}/mcp`, { jsonrpc: "2.0", id: 1, method: "ping" }, { accept: "text/html" })
          expect(notAcceptable.status).toBe(406)
          expect(bodyOf<{ detail: string }>(notAcceptable).detail).toContain("Accept: application/json, text/event-stream")
          const noSession = yield* postJson(`${base}/mcp`, { jsonrpc: "2.0", id: 2, method: "tools/list" }, streams)
          expect(noSession.status).toBe(400)
          expect(noSession.text).toContain("initialize")
          const unknownSession = yield* postJson(
            `${base}/mcp`,
            { jsonrpc: "2.0", id: 3, method: "tools/list" },
            {
              ...streams,
              "mcp-session-id": "no-such-session",
              "mcp-protocol-version": "2025-11-25"
            }
          )
          expect(unknownSession.status).toBe(404)
          expect(bodyOf<{ detail: string }>(unknownSession).detail).toContain("initialize again")
          const parseError = yield* request(`${base}/mcp`, {
            method: "POST",
            headers: { ...streams, "content-type": "application/json" },
            body: "{not json"
          })
          // Input the server cannot take as a message is an HTTP error (the transport's rule), its body the JSON-RPC error.
          expect(parseError.status).toBe(400)
          expect(bodyOf<{ error: { code: number } }>(parseError).error.code).toBe(-32700)
          expect(parseError.text).not.toContain("_tag")
          for (const [body, code] of [
            ['{"jsonrpc":', -32700],
            ['{"hello":1}', -32600],
            ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600],
            // Another protocol's version, or none: no JSON-RPC 2.0 request, however well its id is formed.
            ['{"jsonrpc":"1.0","id":1,"method":"ping"}', -32600],
            ['{"id":2,"method":"ping"}', -32600]
          ] as const) {
            const refused = yield* request(`${base}/mcp`, {
              method: "POST",
              headers: { ...streams, "content-type": "application/json" },
              body
            })
            expect(refused.status, body).toBe(400)
            expect(bodyOf<{ error: { code: number } }>(refused).error.code, body).toBe(code)
          }
          // A tools/call whose params do not fit is told which field, with its id (the library says only "Invalid method parameters").
          for (const [params, said] of [
            [{ name: "search_products", arguments: "tallyhouse" }, ["params.arguments must be an object"]],
            [{ name: 7, arguments: [] }, ["params.name must be a tool's name", "params.arguments must be an object"]],
            ["search_products", ["params must be an object"]]
          ] as const) {
            const answer = yield* postJson(`${base}/mcp`, { jsonrpc: "2.0", id: 41, method: "tools/call", params }, streams)
            const { id, error } = bodyOf<{ id: number; error: { code: number; message: string } }>(answer)
            expect([id, error.code]).toEqual([41, -32602])
            for (const words of said) expect(error.message, JSON.stringify(params)).toContain(words)
          }
          // A batch in a session of a revision without batches: said as that, not as "initialize first".
          const opened = yield* postJson(
            `${base}/mcp`,
            {
              jsonrpc: "2.0",
              id: 50,
              method: "initialize",
              params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "batcher", version: "1" } }
            },
            streams
          )
          const session = opened.headers.get("mcp-session-id")!
          const batch = yield* postJson(`${base}/mcp`, [{ jsonrpc: "2.0", id: 51, method: "ping" }], {
            ...streams,
            "mcp-session-id": session,
            "mcp-protocol-version": "2025-11-25"
          })
          expect(batch.status).toBe(400)
          expect(bodyOf<{ detail: string }>(batch).detail).toContain("one JSON-RPC message per request")
          expect(bodyOf<{ detail: string }>(batch).detail).not.toContain("initialize")
        })
      )

      it.effect("a subscribed product's changes are notified; unsubscribing stops them; an unknown URI is refused", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* connect(base)
          expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true)
          const seen = updates(client)
          const [watched, other] = [sample[20]!, sample[21]!]
          const watchedUri = `productdir://products/${watched.id}`
          const otherUri = `productdir://products/${other.id}`
          yield* Effect.promise(() => client.subscribeResource({ uri: watchedUri }))
          yield* Effect.promise(() => client.subscribeResource({ uri: otherUri }))
          // A vote changes the product: its subscribers hear of it.
          expect((yield* postJson(`${base}/vote`, { entity_id: watched.id, direction: "up" })).status).toBe(201)
          yield* eventually(() => seen.includes(watchedUri), watchedUri)
          // After unsubscribing, a change of that product is not notified; the other subscription still is.
          yield* Effect.promise(() => client.unsubscribeResource({ uri: watchedUri }))
          const before = seen.length
          // A changed vote answers 200.
          expect((yield* postJson(`${base}/vote`, { entity_id: watched.id, direction: "down" })).status).toBe(200)
          expect((yield* postJson(`${base}/vote`, { entity_id: other.id, direction: "up" })).status).toBe(201)
          yield* eventually(() => seen.includes(otherUri), otherUri)
          expect(seen.slice(before)).toEqual([otherUri])
          // A URI the server does not have, and a product that does not exist, are refused, saying which URIs there are.
          const foreign = yield* refusalOf(() => client.subscribeResource({ uri: "test://watched-resource" }))
          expect(foreign?.code).toBe(-32002)
          expect(foreign?.message).toContain("productdir://products/{slug}")
          const missing = yield* refusalOf(() => client.subscribeResource({ uri: "productdir://products/no-such-product" }))
          expect(missing?.code).toBe(-32002)
          expect(missing?.message).toContain('No product has the id or slug "no-such-product"')
          expect((missing as { data?: { uri?: string } } | undefined)?.data?.uri).toBe("productdir://products/no-such-product")
        }).pipe(Effect.scoped)
      )

      it.effect("a session's notifications wait for its stream; DELETE ends the session and its stream", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const headers = { accept: "application/json, text/event-stream", "content-type": "application/json" }
          const init = yield* postJson(
            `${base}/mcp`,
            {
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
            },
            headers
          )
          const session = { ...headers, "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" }
          expect(
            bodyOf<{ result: { capabilities: { resources: { subscribe: boolean } } } }>(init).result.capabilities.resources.subscribe
          ).toBe(true)
          const target = sample[22]!
          const uri = `productdir://products/${target.id}`
          const subscribed = yield* postJson(
            `${base}/mcp`,
            { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri } },
            session
          )
          expect(bodyOf<unknown>(subscribed)).toEqual({ jsonrpc: "2.0", id: 2, result: {} })
          const noUri = yield* postJson(`${base}/mcp`, { jsonrpc: "2.0", id: 3, method: "resources/subscribe", params: {} }, session)
          expect(bodyOf<{ error: { code: number; message: string } }>(noUri).error).toMatchObject({
            code: -32602,
            message: expect.stringContaining("params.uri")
          })
          // The change comes before the stream is open: it is sent when the stream opens.
          expect((yield* postJson(`${base}/vote`, { entity_id: target.id, direction: "up" })).status).toBe(201)
          const abort = new AbortController()
          const stream = yield* Effect.promise(() => fetch(`${base}/mcp`, { headers: session, signal: abort.signal }))
          expect([stream.status, stream.headers.get("content-type")]).toEqual([200, "text/event-stream"])
          const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader()
          let received = ""
          yield* Effect.promise(async () => {
            while (!received.includes("notifications/resources/updated")) {
              const { value, done } = await reader.read()
              if (done) break
              received += value
            }
          })
          const data = received.split("\n").find((line) => line.startsWith("data: "))!
          expect(JSON.parse(data.slice(6))).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } })
          // DELETE ends the session: its stream ends, and a new stream for it is refused.
          const ended = yield* request(`${base}/mcp`, { method: "DELETE", headers: session })
          expect(ended.status).toBe(204)
          yield* Effect.promise(async () => {
            for (;;) if ((await reader.read()).done) return
          })
          const again = yield* request(`${base}/mcp`, { headers: session })
          expect(again.status).toBe(404)
          expect(bodyOf<{ detail: string }>(again).detail).toContain("initialize again")
          abort.abort()
        })
      )

      it.effect("MCP-Protocol-Version: another revision this server speaks is answered in the session's; an unknown one is 400", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* connect(base)
          const transport = (client as unknown as { _transport: { sessionId?: string } })._transport
          const session = { accept: "application/json, text/event-stream", "mcp-session-id": transport.sessionId! }
          const list = (version: string) =>
            postJson(`${base}/mcp`, { jsonrpc: "2.0", id: 7, method: "tools/list" }, { ...session, "mcp-protocol-version": version })
          for (const version of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
            const answered = yield* list(version)
            expect([version, answered.status]).toEqual([version, 200])
            expect(bodyOf<{ result: { tools: Array<unknown> } }>(answered).result.tools.length).toBe(5)
          }
          const unknown = yield* list("1999-01-01")
          expect(unknown.status).toBe(400)
          expect(unknown.text).toContain("1999-01-01")
        }).pipe(Effect.scoped)
      )

      it.effect("links in tool results are absolute", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* connect(base)
          const view = yield* call(client, "get_product", { entity_id: sample[0]!.id })
          const links = (view.structuredContent as { links: Record<string, { href: string }> }).links
          for (const link of Object.values(links)) expect(link.href.startsWith(`${base}/`), link.href).toBe(true)
          const found = yield* call(client, "search_products", { limit: 1 })
          const item = (found.structuredContent as { items: Array<{ links: Record<string, string | { href: string }> }> }).items[0]!
          for (const link of Object.values(item.links)) {
            const href = typeof link === "string" ? link : link.href
            expect(href.startsWith(`${base}/`), href).toBe(true)
          }
          // The vote a search result offers goes to the same server, with the product named.
          const vote = yield* call(client, "vote", { entity_id: sample[0]!.id })
          const next = (vote.structuredContent as { links: Record<string, string> }).links
          for (const href of Object.values(next)) expect(href.startsWith(`${base}/`), href).toBe(true)
        }).pipe(Effect.scoped)
      )
    })
  })
}
