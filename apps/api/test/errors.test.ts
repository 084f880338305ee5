/**
 * Errors an agent can act on: every wrong field of a request at once, each said
 * in plain words beside the field's name, never a schema identifier or a regular
 * expression; unknown fields refused and named; the vote template of the agent
 * view succeeds exactly as given.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { bodyOf, postJson, type ProblemBody, request } from "./http.ts"

const product = sampleCatalog()[0]!

/** What no message an agent reads may contain: schema vocabulary and code. */
const JARGON = /Expected|RegExp|<filter>|VoteDirection|ListSort|ProductRef|VoterId|Schema|\^\[|\{1,|never/

describe("errors an agent can act on", () => {
  layer(serverLayer(memoryStores()), { excludeTestServices: true })((it) => {
    it.effect("a vote with several wrong fields gets one 400 that names each, in plain words", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const reply = yield* postJson(`${base}/vote`, {
          entity_id: "Pulse Board",
          direction: "sideways",
          reason: "   ",
          voter_id: "has spaces"
        })
        expect(reply.status).toBe(400)
        const problem = bodyOf<ProblemBody>(reply)
        expect(problem.errors?.map((e) => e.path.join("."))).toEqual(
          expect.arrayContaining(["payload.entity_id", "payload.direction", "payload.reason", "payload.voter_id"])
        )
        expect(problem.errors?.find((e) => e.path.at(-1) === "direction")?.message).toBe('must be "up" or "down"')
        expect(problem.detail).toContain('direction must be "up" or "down"')
        expect(problem.detail).toContain("reason must not be blank")
        expect(problem.detail).toMatch(/^4 fields are not right: /)
        expect(`${problem.detail} ${JSON.stringify(problem.errors)}`).not.toMatch(JARGON)
      })
    )

    it.effect("an unknown field is refused and named, with the fields the request takes", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const reply = yield* postJson(`${base}/vote`, { entity_id: product.id, score: 5 })
        expect(reply.status).toBe(400)
        const problem = bodyOf<ProblemBody>(reply)
        expect(problem.errors).toEqual([{ path: ["payload", "score"], message: "is not a field of this request" }])
        expect(problem.detail).toContain("This request's fields are entity_id, direction, voter_id, reason.")
      })
    )

    it.effect("bad query parameters and paths are said in plain words too", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const cases: ReadonlyArray<readonly [string, string]> = [
          ["/products?limit=abc", "limit must be a whole number from 1 to 100"],
          ["/products?limit=500", "limit must be a whole number from 1 to 100"],
          ["/products?sort=price", 'sort must be "relevance", "trust", "name" or "updated"'],
          ["/products?cursor=%25", "cursor must be the next_cursor of a page this service returned"],
          [`/entities/${product.id}?format=xml`, 'format must be "json" or "agent"'],
          ["/entities/Pulse%20Board", "slug must be a product id (UUID) or slug"],
          ["/products/pulse-board", "id must be a product id (a UUID)"]
        ]
        for (const [path, says] of cases) {
          const reply = yield* request(`${base}${path}`)
          expect(reply.status, path).toBe(400)
          const problem = bodyOf<ProblemBody>(reply)
          expect(problem.detail, path).toContain(says)
          expect(`${problem.detail} ${JSON.stringify(problem.errors)}`, path).not.toMatch(JARGON)
        }
      })
    )

    it.effect("a query with several wrong parameters gets one 400 naming each, a bad time and a garbled cursor among them", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
          ["/products?sort=price&limit=nope&updated_since=yesterday", ["sort", "limit", "updated_since"]],
          ["/products?cursor=abc&updated_since=x", ["cursor", "updated_since"]],
          ["/products?limit=2&limit=3&q=a&q=b&sort=name", ["limit", "q"]],
          ["/products?cursor=eyJvZmZzZXQiOjF9x&limit=0&updated_since=2026-13-45", ["cursor", "limit", "updated_since"]]
        ]
        for (const [path, fields] of cases) {
          const reply = yield* request(`${base}${path}`)
          expect(reply.status, path).toBe(400)
          const problem = bodyOf<ProblemBody>(reply)
          expect(problem.errors?.map((e) => e.path.at(-1)).sort(), path).toEqual([...fields].sort())
          expect(problem.detail, path).toMatch(new RegExp(`^${fields.length} fields are not right: `))
          expect(`${problem.detail} ${JSON.stringify(problem.errors)}`, path).not.toMatch(JARGON)
        }
        for (const path of ["/products?limit=2&limit=3", `/entities/${product.id}?format=agent&format=json`]) {
          const twice = bodyOf<ProblemBody>(yield* request(`${base}${path}`))
          expect(twice.detail, path).toMatch(/^1 field is not right: (limit|format) is given more than once: send it once\.$/)
        }
        const since = yield* request(`${base}/products?updated_since=yesterday`)
        expect(bodyOf<ProblemBody>(since).detail).toContain("updated_since must be an ISO 8601 timestamp, e.g. 2026-11-01T00:00:00Z")
      })
    )

    it.effect("the agent view's vote template succeeds exactly as given, and every field it may carry is described", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const view = bodyOf<{
          links: { vote: { method: string; href: string; content_type: string; body: unknown; fields: Record<string, string> } }
        }>(yield* request(`${base}/entities/${product.id}?format=agent`))
        const { vote } = view.links
        const sent = yield* request(`${base}${vote.href}`, {
          method: vote.method,
          headers: { "content-type": vote.content_type },
          body: JSON.stringify(vote.body)
        })
        expect(sent.status, sent.text).toBe(201)
        expect(Object.keys(vote.fields)).toEqual(expect.arrayContaining(["entity_id", "direction", "reason"]))
        const card = bodyOf<{ links: { vote: { body: unknown } } }>(yield* request(`${base}/products/${product.id}/agent-card`))
        expect(card.links.vote.body).toEqual(vote.body)
      })
    )
  })
})
