/**
 * An agent that knows only the base URL: GET / → search → the agent view → the
 * vote, four calls, reading only the links each answer gives (nothing is built
 * but the search words put into the template the index offers). Then the vote's
 * answer leads back to the view, which shows the vote.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { baseUrl, memoryStores, serverLayer, storeVariants } from "./harness.ts"
import { bodyOf, postJson, request } from "./http.ts"

interface VoteTemplate {
  readonly method: string
  readonly href: string
  readonly content_type: string
  readonly body: Record<string, unknown>
}

const variants = [{ name: "memory", stores: memoryStores }, ...storeVariants()]

reportLeftOut("an agent from the base URL", storesLeftOut())
for (const variant of variants) {
  describe(`an agent from the base URL (${variant.name})`, () => {
    layer(serverLayer(variant.stores()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("GET / → search → agent view → vote: four calls, only links it was given", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const calls: Array<string> = []
          const get = (href: string) => {
            calls.push(`GET ${href}`)
            return request(new URL(href, `${base}/`).href)
          }

          // 1. The index: where search is, and what it takes.
          const index = bodyOf<{ search: string; paths: Array<{ path: string; query: Array<{ name: string }> }> }>(yield* get("/"))
          const listing = index.paths.find((p) => index.search.startsWith(`${p.path}?`))!
          expect(listing.query.map((q) => q.name)).toEqual(expect.arrayContaining(["q", "category", "sort", "limit", "cursor"]))

          // 2. Search as an agent types it: no accent, one word.
          const found = yield* get(index.search.replace("{q}", encodeURIComponent("okonomi")))
          expect(found.status).toBe(200)
          const items = bodyOf<{ items: Array<{ name: string; links: { agent_view: string; problems: string; vote: VoteTemplate } }> }>(
            found
          ).items
          expect(items[0]!.name).toBe("Økonomi Books")

          // 3. The decision view, with the top problems and a vote template.
          const view = yield* get(items[0]!.links.agent_view)
          expect(view.status).toBe(200)
          const judged = bodyOf<{ name: string; problems: { top: Array<unknown> }; links: { vote: VoteTemplate } }>(view)
          expect(judged.name).toBe("Økonomi Books")
          const vote = judged.links.vote

          // 4. The vote, as sent.
          calls.push(`${vote.method} ${vote.href}`)
          const cast = yield* postJson(new URL(vote.href, `${base}/`).href, vote.body, { "content-type": vote.content_type })
          expect(cast.status).toBe(201)
          const outcome = bodyOf<{ status: string; trust: { trust_up: number }; links: { agent_view: string } }>(cast)
          expect(outcome.status).toBe("recorded")
          expect(calls).toHaveLength(4)

          // The answer leads on: the view it links to shows the vote.
          const after = bodyOf<{ trust: { trust_up: number } }>(yield* get(outcome.links.agent_view))
          expect(after.trust.trust_up).toBe(outcome.trust.trust_up)
        })
      )

      it.effect("the directory's agent card: A2A fields, absolute interfaces, skills, validators", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const index = bodyOf<{ agent_card: string }>(yield* request(`${base}/`))
          const reply = yield* request(`${base}${index.agent_card}`)
          expect(reply.status).toBe(200)
          expect(reply.headers.get("cache-control")).toMatch(/max-age=/)
          const etag = reply.headers.get("etag")!
          expect(etag).toBeTruthy()
          // A2A 1.0's JSON form (camelCase); the A2A test (a2a.test.ts) drives it with the official SDK.
          const card = bodyOf<{
            name: string
            description: string
            version: string
            supportedInterfaces: Array<{ url: string; protocolBinding: string; protocolVersion: string }>
            capabilities: Record<string, boolean>
            defaultInputModes: Array<string>
            defaultOutputModes: Array<string>
            skills: Array<{ id: string }>
            signatures: Array<{ protected: string; signature: string }>
          }>(reply)
          expect(card.name).toBe("productdir")
          // A2A 1.0 first; then the same endpoints for 0.3 clients (a2a-legacy.test.ts), as the A2A SDK's own server lists them.
          expect(card.supportedInterfaces).toEqual([
            { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
            { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
            { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
            { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" }
          ])
          expect(card.skills.map((s) => s.id)).toEqual(["search", "read-product", "read-problems", "vote"])
          expect(card.defaultInputModes).toContain("application/json")
          expect(card.signatures).toHaveLength(1)
          const again = yield* request(`${base}${index.agent_card}`, { headers: { "if-none-match": etag } })
          expect(again.status).toBe(304)
        })
      )
    })
  })
}
