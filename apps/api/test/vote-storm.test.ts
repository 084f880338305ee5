/**
 * A storm of votes on one product through HTTP, on the SQL stores (PGlite, and the PostgreSQL
 * server when DATABASE_URL is set): the votes that arrive together are cast in groups
 * (docs/database.md, "Votes in groups"), and each still gets its own answer: recorded or changed,
 * its own 429 when its voter is over the limit, a 404 for a product that does not exist. The
 * counters end as the seed plus the votes that count, as the reconciliation checks them.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { hasDrifted, VoteLedger } from "@productdir/domain"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, registeredAgent, serverLayer, storeVariants } from "./harness.ts"
import { bodyOf, postJson } from "./http.ts"

const catalog = sampleCatalog()

interface Outcome {
  readonly status: "recorded" | "unchanged" | "changed"
  readonly trust: { readonly trust_up: number; readonly trust_down: number }
}

const AGENTS = 40

reportLeftOut("a vote storm through HTTP", storesLeftOut())
for (const variant of storeVariants())
  describe(`a vote storm through HTTP (${variant.name})`, () => {
    // Two votes a minute per voter: an agent's third vote in the storm is refused, alone.
    layer(serverLayer(variant.stores(), { votesPerVoter: 2, trustProxy: 1 }), { excludeTestServices: true, timeout: "120 seconds" })(
      (it) => {
        it.effect("many agents' concurrent votes on one product are each answered as cast, and counted exactly", () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const product = catalog[7]!
            const agents = yield* Effect.forEach(
              Array.from({ length: AGENTS }, (_, i) => i),
              (i) => registeredAgent(`storm-${i}`),
              {
                concurrency: 8
              }
            )
            const vote = (i: number, direction: "up" | "down", entity: string = product.id) =>
              Effect.map(
                postJson(
                  `${base}/vote`,
                  { entity_id: entity, direction },
                  { ...agents[i]!.authorization, "x-forwarded-for": `198.51.100.${i}` }
                ),
                (reply) => ({ i, direction, status: reply.status, body: bodyOf<Outcome>(reply) })
              )
            // Every agent votes up; the first five turn their vote down too; agent 0 tries a third vote;
            // one vote names no product. All at once.
            const replies = yield* Effect.all(
              [
                ...agents.map((_, i) => vote(i, "up")),
                ...[0, 1, 2, 3, 4].map((i) => vote(i, "down")),
                vote(0, "up"),
                vote(6, "up", "00000000-0000-4000-8000-000000000000")
              ],
              { concurrency: "unbounded" }
            )
            expect(replies.at(-1)!.status).toBe(404)
            const cast = replies.slice(0, -1)
            // Agent 0 sent three votes within its limit of two: exactly one of them was refused.
            expect(cast.filter((r) => r.status === 429).map((r) => r.i)).toEqual([0])
            const counted = cast.filter((r) => r.status === 200 || r.status === 201)
            expect(counted).toHaveLength(AGENTS + 5 + 1 - 1)
            // Each agent's votes, in whatever order the server took them: one recorded, and then each other
            // one changed or unchanged against it; its vote now is its first, turned over if one changed it.
            const final = new Map<number, "up" | "down">()
            for (let i = 0; i < AGENTS; i++) {
              const mine = counted.filter((r) => r.i === i)
              const first = mine.filter((r) => r.body.status === "recorded")
              expect(first).toHaveLength(1)
              for (const r of mine) {
                if (r === first[0]) continue
                expect(r.body.status).toBe(r.direction === first[0]!.direction ? "unchanged" : "changed")
              }
              const changed = mine.some((r) => r.body.status === "changed")
              const direction = first[0]!.direction
              final.set(i, changed ? (direction === "up" ? "down" : "up") : direction)
            }
            const reply = yield* postJson(`${base}/vote`, { entity_id: product.id, direction: "up" }, { "x-forwarded-for": "203.0.113.77" })
            const up = [...final.values()].filter((d) => d === "up").length
            const down = final.size - up
            expect(bodyOf<Outcome>(reply).trust).toMatchObject({ trust_up: product.seed.up + up + 1, trust_down: product.seed.down + down })
            const ledger = yield* VoteLedger
            const snapshots = yield* Stream.runCollect(ledger.snapshots(1000))
            expect([...snapshots].flat().filter(hasDrifted)).toEqual([])
          })
        )
      }
    )
  })
