/**
 * A search answers an agent's request honestly (issue 61, docs/search.md), through every door: each result says
 * how well it matched, the page whether anything answers the request, which words matched nothing and which were
 * corrected; a request the catalog cannot answer says so (HTTP, MCP's search_products, A2A's search skill); "alternative
 * to X" leaves X out and finds its kind; what a record says it is not for counts against it. Over the sample catalog.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { type Message, SendMessageRequest } from "@a2a-js/sdk"
import { ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client"
import { Effect, Schema } from "effect"
import { CatalogStore, ProductPage } from "@productdir/domain"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, serverLayer, storeVariants } from "./harness.ts"
import { type Reply, request } from "./http.ts"
import { connectMcp } from "./mcpClient.ts"

const search = (base: string, q: string, more = "") =>
  Effect.map(request(`${base}/products?q=${encodeURIComponent(q)}${more}`), (reply: Reply) => {
    expect(reply.status).toBe(200)
    // Exactly the page the contract says, nothing else: the answer's fields are the schema's.
    return Schema.decodeUnknownSync(ProductPage)(reply.json, { onExcessProperty: "error" })
  })

const names = (page: ProductPage) => page.items.map((p) => p.name)

reportLeftOut("search answers", storesLeftOut())
for (const variant of storeVariants()) {
  describe(`search answers on ${variant.name}`, () => {
    layer(serverLayer(variant.stores()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("each result says how it matched, and the page that the request is answered", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const page = yield* search(base, "I need a tool that tracks billable hours and turns them into invoices")
          expect(names(page)[0]).toBe("Tallyhouse")
          expect(page.search).toMatchObject({ strong: true, unmatched: [], corrections: [] })
          // Phrasing is not searched for: it is said to be left out.
          expect(page.search?.ignored).toEqual(expect.arrayContaining(["need", "tool"].filter((w) => !page.search?.concepts.includes(w))))
          const first = page.items[0]!.match!
          expect(first.quality).toBe("strong")
          expect(first.matched).toEqual(expect.arrayContaining(["invoices"]))
          expect(first.score).toBeGreaterThan(0)
          expect(first.score).toBeLessThanOrEqual(1)
          // Best first.
          const scores = page.items.map((p) => p.match!.score)
          expect(scores).toEqual([...scores].sort((a, b) => b - a))
        })
      )

      it.effect("a request the catalog cannot answer says so, naming what nothing has", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          for (const q of ["3D printing slicer software", "VPN for remote employees", "point of sale system for my café"]) {
            const page = yield* search(base, q)
            expect(page.search?.strong, q).toBe(false)
            expect(page.search?.answer, q).toMatch(/^(Nothing in the catalog matches|No product matches the whole request)/)
            expect(page.search?.unmatched.length, q).toBeGreaterThan(0)
            for (const item of page.items) expect(item.match?.quality, q).not.toBe("strong")
          }
          const nothing = yield* search(base, "VPN")
          expect(nothing.items).toEqual([])
          expect(nothing.search?.answer).toBe("Nothing in the catalog matches this request: nothing has vpn.")
        })
      )

      it.effect("alternative to a catalog product: its kind, without it; to one the catalog lacks: said, and its kind searched", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const inCatalog = yield* search(base, "alternative to Pathwise Tasks for a software team running sprints")
          expect(names(inCatalog)).not.toContain("Pathwise Tasks")
          expect(names(inCatalog)[0]).toBe("Sprintloom")
          expect(inCatalog.search?.alternative_to).toMatchObject({ name: "pathwise tasks", in_catalog: true })

          const lacking = yield* search(base, "alternative to Trello")
          expect(lacking.search?.alternative_to).toMatchObject({ name: "trello", in_catalog: false })
          expect(lacking.items.length).toBeGreaterThan(0)
          expect(lacking.items[0]!.category).toBe("Project Management")

          // Unknown to the catalog and to the vocabulary: said, and nothing else to search for.
          const unknown = yield* search(base, "alternative to Zorblatt")
          expect(unknown.items).toEqual([])
          expect(unknown.search?.alternative_to?.read_as).toMatch(/not in the catalog/)
        })
      )

      it.effect("a misspelling is corrected and said; a real word is never read as a typo", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const typo = yield* search(base, "pasword manager")
          expect(names(typo)[0]).toBe("Keystone Vault")
          expect(typo.search?.corrections).toEqual([{ word: "pasword", read_as: "password" }])
          // "slack" is one letter from "stack" (Stacktrace Sentinel's "stack traces"), but it is a word: not corrected.
          const slack = yield* search(base, "slack")
          expect(slack.search?.corrections).toEqual([])
          expect(names(slack)).not.toContain("Stacktrace Sentinel")
        })
      )

      it.effect("constraints: a free plan and a price ceiling are read, met or not by each result", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const page = yield* search(base, "password manager for a small team under $5")
          expect(page.search?.constraints).toEqual(["a price of at most $5"])
          expect(names(page)[0]).toBe("Keystone Vault")
          expect(page.items[0]!.match?.constraints.met).toEqual(["a price of at most $5"])
          const free = yield* search(base, "video meetings with a free plan")
          expect(free.search?.constraints).toEqual(["a free plan"])
          for (const item of free.items.filter((i) => i.match?.quality === "strong")) expect(item.match?.constraints.unmet).toEqual([])
        })
      )

      it.effect("a product whose record changed is judged by what it says now", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* CatalogStore
          const product = sampleCatalog().find((p) => p.content.name === "Gantry Planner")!
          // Judged once: its description is kept for the next answer.
          const before = yield* search(base, "gantt charts")
          expect(names(before)).toContain("Gantry Planner")
          // Its record now names a word it did not: the next answer reads that, not the description it kept.
          const current = yield* store.find(product.id)
          yield* store.upsert([
            {
              id: current.id,
              seed: current.seed,
              content: { ...current.content, ai_summary: `${current.content.ai_summary} Exports to Zorblattic.` }
            }
          ])
          const after = yield* search(base, "gantt charts zorblattic")
          expect(after.items[0]?.name).toBe("Gantry Planner")
          expect(after.items[0]?.match?.matched).toEqual(expect.arrayContaining(["zorblattic"]))
        })
      )

      it.effect("pages of an answer are slices of one answer: every result once, in order", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const whole = yield* search(base, "analytics", "&limit=100")
          expect(whole.items.length).toBeGreaterThan(2)
          const seen: Array<string> = []
          let cursor: string | null = ""
          while (cursor !== null) {
            const page: ProductPage = yield* search(base, "analytics", `&limit=2${cursor === "" ? "" : `&cursor=${cursor}`}`)
            seen.push(...names(page))
            cursor = page.next_cursor
          }
          expect(seen).toEqual(names(whole))
          // A cursor belongs to its request.
          const first = yield* search(base, "analytics", "&limit=2")
          const other = yield* request(`${base}/products?q=chat&cursor=${first.next_cursor}`)
          expect(other.status).toBe(400)
        })
      )

      it.effect("MCP's search_products and A2A's search say the same: an unanswerable request is said to be one", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* connectMcp(base)
          const result = (yield* Effect.promise(() =>
            client.callTool({ name: "search_products", arguments: { q: "VPN for remote employees" } })
          )) as { structuredContent?: { items: Array<unknown>; search?: { strong: boolean; answer: string } } }
          expect(result.structuredContent?.search).toMatchObject({ strong: false })
          expect(result.structuredContent?.search?.answer).toMatch(/^(Nothing in the catalog matches|No product matches the whole request)/)

          const a2a = yield* Effect.promise(() =>
            new ClientFactory(
              ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["JSONRPC"] })
            ).createFromUrl(base)
          )
          const reply = (yield* Effect.promise(() =>
            a2a.sendMessage(
              SendMessageRequest.fromJSON({
                message: {
                  messageId: "search-answers-1",
                  role: "ROLE_USER",
                  parts: [{ data: { skill: "search", q: "VPN" } }]
                }
              })
            )
          )) as Message
          const text = reply.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])).join(" ")
          expect(text).toBe("Nothing in the catalog matches this request: nothing has vpn.")
        }).pipe(Effect.scoped)
      )
    })
  })
}
