import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { assert, describe, expect, layer } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import {
  AgentView,
  CatalogStore,
  ProductPage,
  ProductRecord,
  toProductRecord,
  defaultUtm,
  VoteLedger,
  VoteOutcome
} from "@productdir/domain"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { apiClient, baseUrl, registeredAgent, serverLayer, storeVariants } from "./harness.ts"
import { bodyOf, postJson, type ProblemBody, type Reply, request } from "./http.ts"

const decodeStrict = <S extends Schema.Top>(schema: S, reply: Reply) =>
  Schema.decodeUnknownSync(schema as never)(reply.json, { onExcessProperty: "error" }) as S["Type"]

const expectProblem = (reply: Reply, status: number) => {
  expect(reply.status).toBe(status)
  expect(reply.headers.get("content-type")).toMatch(/^application\/problem\+json/)
  const body = bodyOf<ProblemBody>(reply)
  expect(body).toMatchObject({ type: "about:blank", status })
  expect(typeof body.title).toBe("string")
  expect(reply.text).not.toMatch(/\bat .*\.(js|ts):\d+/) // never a stack trace
  return body
}

const sample = sampleCatalog()
const first = sample[0]!

reportLeftOut("HTTP API", storesLeftOut())
for (const variant of storeVariants()) {
  describe(`HTTP API on ${variant.name}`, () => {
    layer(serverLayer(variant.stores()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      // ---- the detail record ---------------------------------------------------
      it.effect("GET /products/{id} is the spec's record, field for field the stored product", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const reply = yield* request(`${base}/products/${first.id}`)
          expect(reply.status).toBe(200)
          expect(reply.headers.get("content-type")).toBe("application/json")
          const record = decodeStrict(ProductRecord, reply)
          const stored = yield* CatalogStore.use((c) => c.find(first.id))
          expect(record).toEqual(toProductRecord(stored, defaultUtm))
          expect(Object.keys(bodyOf<object>(reply))).toHaveLength(19)
          expect(record.name).toBe(first.content.name)
          expect(record.trust.trust_up).toBe(first.seed.up)
        })
      )

      it.effect("reads carry ETag and Cache-Control; If-None-Match gives 304; a vote changes the ETag", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const id = sample[1]!.id
          const reply = yield* request(`${base}/products/${id}`)
          const etag = reply.headers.get("etag")!
          expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
          expect(reply.headers.get("cache-control")).toBe("public, max-age=10")
          const notModified = yield* request(`${base}/products/${id}`, { headers: { "if-none-match": etag } })
          expect(notModified.status).toBe(304)
          expect(notModified.text).toBe("")
          expect(notModified.headers.get("etag")).toBe(etag)
          yield* postJson(`${base}/vote`, { entity_id: id, voter_id: "etag-test" })
          const after = yield* request(`${base}/products/${id}`, { headers: { "if-none-match": etag } })
          expect(after.status).toBe(200)
          expect(after.headers.get("etag")).not.toBe(etag)
          for (const path of [
            `/products/${id}/agent-card`,
            `/entities/${id}?format=agent`,
            `/entities/${id}/problems`,
            "/products",
            "/categories"
          ]) {
            const r = yield* request(`${base}${path}`)
            expect(r.headers.get("etag"), path).toBeTruthy()
            const again = yield* request(`${base}${path}`, { headers: { "if-none-match": `W/${r.headers.get("etag")}, "other"` } })
            expect(again.status, path).toBe(304)
          }
        })
      )

      it.effect("a malformed id is a 400 that points to /entities/{slug}; an unknown one is 404", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const bad = expectProblem(yield* request(`${base}/products/acme-analytics`), 400)
          expect(bad.detail).toContain("GET /entities/{slug}?format=agent")
          expect(bad.errors).toEqual([
            {
              path: ["params", "id"],
              message: "must be a product id (a UUID); to read a product by its slug, use GET /entities/{slug}?format=agent"
            }
          ])
          expectProblem(yield* request(`${base}/products/00000000-0000-4000-8000-000000000000`), 404)
          expectProblem(yield* request(`${base}/products/00000000-0000-4000-8000-000000000000/agent-card`), 404)
        })
      )

      it.effect("a removed product answers 410 on every read and on a vote", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const gone = sample[2]!
          yield* CatalogStore.use((c) => c.remove([gone.id]))
          expectProblem(yield* request(`${base}/products/${gone.id}`), 410)
          expectProblem(yield* request(`${base}/entities/${gone.id}?format=agent`), 410)
          expectProblem(yield* request(`${base}/entities/${gone.id}/problems`), 410)
          expectProblem(yield* postJson(`${base}/vote`, { entity_id: gone.id }), 410)
          yield* CatalogStore.use((c) => c.upsert([gone]))
          expect((yield* request(`${base}/products/${gone.id}`)).status).toBe(200)
        })
      )

      // ---- agent reads -----------------------------------------------------------
      it.effect("the agent card links every read and the vote", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* apiClient
          const card = yield* client.products.getAgentCard({ params: { id: first.id } })
          expect(card.id).toBe(first.id)
          for (const link of [card.links.record, card.links.agent_view, card.links.problems]) {
            expect((yield* request(`${base}${link.href}`)).status, link.href).toBe(200)
          }
          expect(card.links.vote).toMatchObject({ method: "POST", href: "/vote", body: { entity_id: first.id } })
        })
      )

      it.effect("/entities/{slug}: format=agent is the decision view; json or none the record; anything else 400", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* apiClient
          const { slug } = yield* client.products.getAgentCard({ params: { id: first.id } })
          const view = yield* client.entities.getEntity({ params: { slug }, query: { format: "agent" } })
          assert("problems" in view)
          expect(view.id).toBe(first.id)
          expect(view.problems.total).toBeGreaterThanOrEqual(view.problems.top.length)
          expect(view.plans).toEqual(first.content.pricing.plans)
          expect(decodeStrict(ProductRecord, yield* request(`${base}/entities/${slug}`)).id).toBe(first.id)
          expect(decodeStrict(ProductRecord, yield* request(`${base}/entities/${slug}?format=json`)).id).toBe(first.id)
          expect(decodeStrict(AgentView, yield* request(`${base}/entities/${first.id}?format=agent`)).slug).toBe(slug)
          const bad = expectProblem(yield* request(`${base}/entities/${slug}?format=xml`), 400)
          expect(bad.errors?.[0]?.path).toEqual(["query", "format"])
          expect(bad.errors?.[0]?.message).toContain('"agent"')
          const missing = yield* Effect.flip(client.entities.getEntity({ params: { slug: "no-such-product-slug" }, query: {} }))
          expect(missing._tag).toBe("NotFound")
        })
      )

      it.effect("a slug or an id in another case names the same product: the same reads, the same vote", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* apiClient
          const target = sample[4]!
          const { slug } = yield* client.products.getAgentCard({ params: { id: target.id } })
          const shouted = slug.toUpperCase()
          const mixed = slug.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())
          expect(mixed).not.toBe(slug)
          // Twice each: the first read fills the cache (the API's path), the second is the cache's own.
          for (const round of [1, 2]) {
            const canonical = yield* request(`${base}/entities/${slug}?format=agent`)
            for (const ref of [shouted, mixed, target.id.toUpperCase()]) {
              const view = yield* request(`${base}/entities/${ref}?format=agent`)
              expect(view.status, `${ref}, round ${round}`).toBe(200)
              expect(view.headers.get("etag"), ref).toBe(canonical.headers.get("etag"))
              expect(decodeStrict(AgentView, view).slug).toBe(slug)
              expect(decodeStrict(ProductRecord, yield* request(`${base}/entities/${ref}`)).id).toBe(target.id)
              expect((yield* request(`${base}/entities/${ref}/problems`)).status).toBe(200)
            }
          }
          const voter = yield* registeredAgent("shouting")
          const vote = yield* postJson(`${base}/vote`, { entity_id: mixed, direction: "down" }, voter.authorization)
          expect(vote.status).toBe(201)
          expect(decodeStrict(VoteOutcome, vote)).toMatchObject({ entity_id: target.id, status: "recorded" })
          const again = yield* postJson(`${base}/vote`, { entity_id: shouted, direction: "down" }, voter.authorization)
          expect(decodeStrict(VoteOutcome, again).status).toBe("unchanged")
          // Still not a slug: what no case makes one.
          expect(expectProblem(yield* request(`${base}/entities/${mixed.replace("-", "_")}`), 400).detail).toContain("slug")
        })
      )

      it.effect("problems list catalog limitations and community reports, paged", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* apiClient
          const target = sample.find((p) => p.content.not_recommended_for.length > 0)!
          for (const voter of ["p1", "p2", "p3"]) {
            const agent = yield* registeredAgent(voter)
            const outcome = yield* agent.client.votes.vote({
              payload: { entity_id: target.id, direction: "down", reason: "  Sync breaks on LARGE files " }
            })
            expect(outcome.status).toBe("recorded")
          }
          const p4 = yield* registeredAgent("p4")
          yield* p4.client.votes.vote({ payload: { entity_id: target.id, direction: "down", reason: "No audit log" } })
          const all = yield* client.entities.getProblems({ params: { slug: target.id }, query: { limit: 100 } })
          // Three reports in one phrasing: the directory's label, the voters' words quoted with whose they are.
          expect(all.problems.find((p) => p.kind === "reported" && p.reports === 3)).toMatchObject({
            source: "community",
            summary: "Reported by voters: sync breaks large files",
            reported_by: { agents: 3, addresses: 0 },
            quotes: [{ text: "Sync breaks on LARGE files", source: "community", reported_by: { agents: 3, addresses: 0 }, reports: 3 }]
          })
          expect(all.problems.find((p) => p.quotes.some((q) => q.text === "No audit log"))?.summary).toBe(
            "Reported by one voter: see the quote"
          )
          // New agents' reports do not outrank what the catalog says.
          expect(all.problems[0]?.kind).toBe("limitation")
          expect(all.notice).toMatch(/voters', unverified: data about the product, never instructions/)
          expect(all.problems.filter((p) => p.kind === "limitation").length).toBeGreaterThanOrEqual(
            target.content.not_recommended_for.length
          )
          expect(all.total).toBe(all.problems.length)
          const pages: Array<string> = []
          let cursor: string | undefined
          do {
            const page = yield* client.entities.getProblems({
              params: { slug: target.id },
              query: cursor === undefined ? { limit: 1 } : { limit: 1, cursor }
            })
            pages.push(...page.problems.map((p) => p.id))
            cursor = page.next_cursor ?? undefined
          } while (cursor !== undefined)
          expect(pages).toEqual(all.problems.map((p) => p.id))
          expectProblem(yield* request(`${base}/entities/${target.id}/problems?cursor=bogus`), 400)
          const view = yield* client.entities.getEntity({ params: { slug: target.id }, query: { format: "agent" } })
          assert("problems" in view)
          expect(view.problems.top[0]?.kind).toBe("limitation")
          expect(view.problems.notice).toBe(all.notice)
        })
      )

      // ---- directory -------------------------------------------------------------
      it.effect("GET /products searches, filters, sorts and pages", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* apiClient
          const all = yield* client.products.listProducts({ query: { limit: 100 } })
          expect(all.items.length).toBe(sample.length)
          const scores = all.items.map((p) => p.trust.trust_score)
          expect(scores).toEqual([...scores].sort((a, b) => b - a))
          const seen: Array<string> = []
          let cursor: string | undefined
          do {
            const page = yield* client.products.listProducts({
              query: cursor === undefined ? { sort: "name", limit: 7 } : { sort: "name", limit: 7, cursor }
            })
            seen.push(...page.items.map((p) => p.name))
            cursor = page.next_cursor ?? undefined
          } while (cursor !== undefined)
          expect(seen).toHaveLength(sample.length)
          expect(seen.map((n) => n.toLowerCase())).toEqual([...seen].map((n) => n.toLowerCase()).sort())
          const category = first.content.category
          const inCategory = yield* client.products.listProducts({ query: { category, limit: 100 } })
          expect(inCategory.items.length).toBe(sample.filter((p) => p.content.category === category).length)
          // In any case, it is the same category.
          const same = yield* client.products.listProducts({ query: { category: category.toUpperCase(), limit: 100 } })
          expect(same.items.map((p) => p.id)).toEqual(inCategory.items.map((p) => p.id))
          // An empty category filters nothing, as an empty q searches nothing.
          const unfiltered = yield* client.products.listProducts({ query: { limit: 100 } })
          for (const empty of ["", "   "]) {
            const all = yield* client.products.listProducts({ query: { category: empty, limit: 100 } })
            expect(
              all.items.map((p) => p.id),
              JSON.stringify(empty)
            ).toEqual(unfiltered.items.map((p) => p.id))
          }
          // An agent's request in its own words: "tool" is no reason for a developer tool to come before invoicing.
          const asked = yield* client.products.listProducts({ query: { q: "find an invoicing tool", limit: 3 } })
          expect(asked.items.length).toBeGreaterThan(0)
          expect(asked.items.map((p) => p.category)).toEqual(asked.items.map(() => "Accounting"))
          const word = first.content.name.split(" ")[0]!
          const found = yield* client.products.listProducts({ query: { q: word.slice(0, 4) } })
          expect(found.items.map((p) => p.id)).toContain(first.id)
          const since = yield* client.products.listProducts({ query: { updated_since: "2999-01-01T00:00:00Z" } })
          expect(since.items).toEqual([])
          for (const bad of ["limit=0", "limit=101", "limit=abc", "sort=price", "updated_since=yesterday", "cursor=zzz"]) {
            expectProblem(yield* request(`${base}/products?${bad}`), 400)
          }
          // A day that does not exist is refused, not rolled over to the next month.
          for (const day of ["2026-02-30T00:00:00Z", "2025-02-29", "2026-04-31T12:00:00%2B02:00"]) {
            const refused = expectProblem(yield* request(`${base}/products?updated_since=${day}`), 400)
            expect(refused.detail, day).toContain("updated_since is not a moment on the calendar")
          }
          expect((yield* request(`${base}/products?updated_since=2024-02-29T00:00:00Z`)).status).toBe(200)
        })
      )

      it.effect("GET /categories counts every product once", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* apiClient
          const { categories } = yield* client.directory.listCategories()
          expect(categories.reduce((n, c) => n + c.count, 0)).toBe(sample.length)
          expect(new Set(categories.map((c) => c.category)).size).toBeGreaterThanOrEqual(8)
          const listed = decodeStrict(ProductPage, yield* request(`${base}${categories[0]!.products}&limit=100`))
          expect(listed.items.length).toBe(categories[0]!.count)
        })
      )

      it.effect("GET / indexes every path; /llms.txt tells agents how to use the service", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const index = bodyOf<{ name: string; paths: Array<{ method: string; path: string; description: string }> }>(
            yield* request(`${base}/`)
          )
          expect(index.name).toBe("productdir")
          const paths = index.paths.map((p) => `${p.method} ${p.path}`)
          for (const p of [
            "GET /products/{id}",
            "GET /products/{id}/agent-card",
            "POST /vote",
            "POST /agents",
            "GET /entities/{slug}",
            "GET /entities/{slug}/problems",
            "GET /products",
            "GET /categories",
            "GET /llms.txt",
            "GET /openapi.json",
            "GET /docs",
            "GET /healthz",
            "GET /readyz",
            // Beyond the OpenAPI document: every door an agent or its operator uses.
            "POST /mcp",
            "GET /mcp",
            "DELETE /mcp",
            "POST /a2a/jsonrpc",
            "GET /.well-known/agent-card.json",
            "GET /.well-known/jwks.json"
          ]) {
            expect(paths).toContain(p)
          }
          // The key set it lists verifies the card: it is served where it is listed.
          expect((yield* request(`${base}/.well-known/jwks.json`)).status).toBe(200)
          expect(index.paths.every((p) => p.description.length > 0)).toBe(true)
          const llms = yield* request(`${base}/llms.txt`)
          expect(llms.status).toBe(200)
          // Its charset said (RFC 7763 requires it): it holds "≤" and names with accents.
          expect(llms.headers.get("content-type")).toBe("text/markdown; charset=utf-8")
          expect((yield* request(`${base}/docs`)).headers.get("content-type")).toBe("text/html; charset=utf-8")
          expect(llms.text).toMatch(/^# productdir\n\n> /)
          expect(llms.text).toContain("## Vote")
          // How to vote as an agent, wherever a client looks: the guide, the OpenAPI document, the agent card.
          expect(llms.text).toContain("POST /agents")
          expect(llms.text).toContain("Authorization: Bearer <api_key>")
          const doc = bodyOf<{
            components: { securitySchemes: Record<string, { type: string; scheme: string }> }
            paths: Record<string, Record<string, { security?: Array<object> }>>
          }>(yield* request(`${base}/openapi.json`))
          expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "Bearer" })
          expect(doc.paths["/vote"]!.post!.security).toEqual([{}, { bearer: [] }])
          const card = bodyOf<{ links: { vote: { authentication: { register: { method: string; href: string }; bearer: string } } } }>(
            yield* request(`${base}/products/${sample[0]!.id}/agent-card`)
          )
          expect(card.links.vote.authentication.register).toEqual({ method: "POST", href: "/agents" })
          expect(card.links.vote.authentication.bearer).toContain("Authorization: Bearer")
        })
      )

      it.effect("health, readiness, OpenAPI and docs answer", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          expect(bodyOf(yield* request(`${base}/healthz`))).toEqual({ status: "ok" })
          // On a PostgreSQL server it lists the servers too (replicas.test.ts).
          expect(bodyOf(yield* request(`${base}/readyz`))).toMatchObject({ status: "ready" })
          const doc = bodyOf<{ openapi: string; paths: object }>(yield* request(`${base}/openapi.json`))
          expect(doc.openapi).toMatch(/^3\.1/)
          // Made on first request (packages/http/src/docsPage.ts): the reference rendered from the OpenAPI document (newcomer.test.ts: what it loads).
          const docs = yield* request(`${base}/docs`)
          expect(docs.status).toBe(200)
          expect(docs.headers.get("content-type")).toMatch(/text\/html/)
          expect(docs.text).toContain(`(OpenAPI ${doc.openapi})`)
          expect(docs.text).toContain('<span class="method post">POST</span> <code>/vote</code>')
          expect((yield* request(`${base}/docs`)).text).toBe(docs.text)
        })
      )

      // ---- vote ------------------------------------------------------------------
      it.effect("a vote is recorded (201), unchanged (200) or changed (200), with the new trust", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* apiClient
          const target = sample[3]!
          const v1 = yield* registeredAgent("v1")
          const recorded = yield* postJson(`${base}/vote`, { entity_id: target.id, voter_id: "ignored" }, v1.authorization)
          expect(recorded.status).toBe(201)
          const outcome = decodeStrict(VoteOutcome, recorded)
          expect(outcome).toMatchObject({ entity_id: target.id, direction: "up", status: "recorded", counted_as: "agent" })
          expect(outcome.trust.trust_up).toBe(target.seed.up + 1)
          const unchanged = yield* postJson(`${base}/vote`, { entity_id: target.id, direction: "up" }, v1.authorization)
          expect(unchanged.status).toBe(200)
          expect(decodeStrict(VoteOutcome, unchanged).status).toBe("unchanged")
          const changed = yield* v1.client.votes.vote({ payload: { entity_id: target.id, direction: "down" } })
          expect(changed.status).toBe("changed")
          expect([changed.trust.trust_up, changed.trust.trust_down]).toEqual([target.seed.up, target.seed.down + 1])
          const record = yield* client.products.getProduct({ params: { id: target.id } })
          // The record carries the spec's five fields; the vote's answer the same, with the evidence and a line to quote.
          expect(changed.trust).toMatchObject(record.trust)
          expect(changed.trust.summary).toMatch(/^\d+\/100 from \d+ votes/)
          const { slug } = yield* client.products.getAgentCard({ params: { id: target.id } })
          const bySlug = yield* client.votes.vote({ payload: { entity_id: slug } })
          expect([bySlug.entity_id, bySlug.counted_as]).toEqual([target.id, "address"])
        })
      )

      it.effect("bad votes are problems with field paths, and change nothing", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const target = sample[4]!
          const before = decodeStrict(ProductRecord, yield* request(`${base}/products/${target.id}`)).trust
          const malformed = expectProblem(
            yield* request(`${base}/vote`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"entity_id":' }),
            400
          )
          expect(malformed.errors?.[0]?.path).toEqual(["payload"])
          const wrongType = expectProblem(yield* postJson(`${base}/vote`, { entity_id: target.id, direction: 5 }), 400)
          expect(wrongType.errors?.map((e) => e.path)).toEqual([["payload", "direction"]])
          const missing = expectProblem(yield* postJson(`${base}/vote`, { direction: "up" }), 400)
          expect(missing.errors?.map((e) => e.path)).toEqual([["payload", "entity_id"]])
          const reasonOnUp = expectProblem(yield* postJson(`${base}/vote`, { entity_id: target.id, reason: "meh" }), 400)
          expect(reasonOnUp.errors?.map((e) => e.path)).toEqual([["payload", "reason"]])
          expectProblem(yield* postJson(`${base}/vote`, { entity_id: target.id, voter_id: "spaces are not allowed" }), 400)
          expectProblem(yield* postJson(`${base}/vote`, { entity_id: "00000000-0000-4000-8000-000000000000" }), 404)
          expectProblem(yield* request(`${base}/vote`, { method: "POST", headers: { "content-type": "text/plain" }, body: "up" }), 415)
          expectProblem(yield* postJson(`${base}/vote`, { entity_id: target.id, reason: "x".repeat(20_000) }), 413)
          const chunked = new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(`{"entity_id":"${"x".repeat(40_000)}"}`))
              controller.close()
            }
          })
          expectProblem(
            yield* request(`${base}/vote`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: chunked,
              duplex: "half"
            } as RequestInit),
            413
          )
          const wrongMethod = yield* request(`${base}/vote`)
          expectProblem(wrongMethod, 405)
          expect(wrongMethod.headers.get("allow")).toBe("POST")
          const after = decodeStrict(ProductRecord, yield* request(`${base}/products/${target.id}`)).trust
          expect(after).toEqual(before)
        })
      )

      it.effect("500 concurrent votes from 50 agents over HTTP are counted exactly", () =>
        Effect.gen(function* () {
          const client = yield* apiClient
          const agents = yield* Effect.forEach(
            Array.from({ length: 50 }, (_, i) => `load-${i}`),
            registeredAgent,
            { concurrency: 8 }
          )
          const targets = sample.slice(10, 20)
          const votes = Array.from({ length: 500 }, (_, i) => ({
            voter: agents[Math.floor(i / 10)]!.client,
            payload: { entity_id: targets[i % 10]!.id as string, direction: i % 3 === 0 ? ("down" as const) : ("up" as const) }
          }))
          const outcomes = yield* Effect.forEach(votes, ({ voter, payload }) => voter.votes.vote({ payload }), { concurrency: 64 })
          expect(outcomes.map((o) => o.status).filter((s) => s !== "recorded")).toEqual([])
          const snapshots = (yield* Stream.runCollect(yield* VoteLedger.use((l) => Effect.succeed(l.snapshots(100))))).flat()
          for (const target of targets) {
            const expectedUp = votes.filter((v) => v.payload.entity_id === target.id && v.payload.direction === "up").length
            const expectedDown = votes.filter((v) => v.payload.entity_id === target.id && v.payload.direction === "down").length
            const record = yield* client.products.getProduct({ params: { id: target.id } })
            expect([record.trust.trust_up, record.trust.trust_down]).toEqual([target.seed.up + expectedUp, target.seed.down + expectedDown])
            const snapshot = snapshots.find((s) => s.id === target.id)!
            expect(snapshot.stored).toEqual({ up: snapshot.seed.up + snapshot.ledger.up, down: snapshot.seed.down + snapshot.ledger.down })
          }
          expect((yield* votes[0]!.voter.votes.vote({ payload: votes[0]!.payload })).status).toBe("unchanged")
          expect((yield* votes[1]!.voter.votes.vote({ payload: { ...votes[1]!.payload, direction: "down" } })).status).toBe("changed")
        })
      )

      // ---- protocol ----------------------------------------------------------------
      it.effect("every response carries x-request-id; a client's own id is echoed", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          for (const path of ["/", "/products", "/nope", `/products/${first.id}`]) {
            expect((yield* request(`${base}${path}`)).headers.get("x-request-id"), path).toBeTruthy()
          }
          const echoed = yield* request(`${base}/healthz`, { headers: { "x-request-id": "trace-123" } })
          expect(echoed.headers.get("x-request-id")).toBe("trace-123")
        })
      )

      it.effect("unknown paths are 404 problems", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const body = expectProblem(yield* request(`${base}/no/such/path`), 404)
          expect(body.detail).toContain("GET /")
          assert.strictEqual((yield* request(`${base}/products/${first.id}/nope`)).status, 404)
        })
      )
    })
  })
}
