/**
 * Votes on one product in groups (SqlVoteLedger.ts, routines/sql/castVote.sql: productdir_cast_votes):
 * the votes that arrive while one of the product's calls is in flight are cast together, in one
 * transaction. Each keeps its own answer (recorded, unchanged or changed; counted or held; its own
 * rate-limit refusal, revocation or error) and the counters end as seed plus the ledger's counted
 * votes, as the reconciliation checks them. The groups show in the ledger: the votes of one
 * transaction share its `xmin`. On PGlite, and on the server when DATABASE_URL is set.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted, Stream } from "effect"
import { SqlClient } from "effect/sql"
import {
  addressVoter,
  type AgentId,
  agentVoter,
  CatalogStore,
  fromImportRecord,
  hasDrifted,
  type ProductId,
  type VoteDirection,
  VoteLedger
} from "@productdir/domain"
import { sampleRecords } from "@productdir/fixtures/sample"
import { layerPglite, layerPostgres } from "../src/index.ts"
import { freshDatabaseUrl, testStores } from "../src/testing.ts"

const inputs = sampleRecords().map((r) => fromImportRecord(r, r.id as ProductId).input)

/** How many transactions wrote the product's ledger rows: one per vote when each votes alone. */
const transactionsOf = (id: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<{ n: number }>`SELECT count(DISTINCT xmin::text)::int AS n FROM votes WHERE product_id = ${id}`, (rows) => rows[0]!.n)
  )

/** The reconciliation's check: every product's counters are its seed plus its counted votes. */
const drifted = Effect.gen(function* () {
  const ledger = yield* VoteLedger
  const batches = yield* Stream.runCollect(ledger.snapshots(1000))
  return [...batches].flat().filter(hasDrifted)
})

const limitOf = (key: string, max = 100) => ({ key, max, windowSeconds: 60 })

const behaviours = (name: string, stores: Layer.Layer<CatalogStore | VoteLedger | SqlClient.SqlClient, unknown>) =>
  describe(`votes on one product in groups (${name})`, () => {
    layer(stores, { timeout: "120 seconds" })((it) => {
      it.effect("concurrent votes of many voters on one product are counted exactly, in far fewer transactions than votes", () =>
        Effect.gen(function* () {
          const catalog = yield* CatalogStore
          const ledger = yield* VoteLedger
          const input = inputs[0]!
          yield* catalog.upsert([input])
          const voters = 400
          // Every voter votes, then half of them turn their vote over: 400 recorded, 200 changed.
          const first = yield* Effect.forEach(
            Array.from({ length: voters }, (_, i) => i),
            (i) =>
              ledger.castWithin([limitOf(`voter:many-${i}`)], {
                entity: input.id,
                voter: addressVoter(`many-${i}`),
                direction: i % 4 === 0 ? "down" : "up"
              }),
            { concurrency: "unbounded" }
          )
          const second = yield* Effect.forEach(
            Array.from({ length: voters / 2 }, (_, i) => i),
            (i) =>
              ledger.castWithin([limitOf(`voter:many-${i}`)], {
                entity: input.id,
                voter: addressVoter(`many-${i}`),
                direction: i % 4 === 0 ? "up" : "down"
              }),
            { concurrency: "unbounded" }
          )
          const statuses = [...first, ...second].map((c) => (c._tag === "Cast" ? c.result.status : "limited"))
          expect(statuses.filter((s) => s === "recorded")).toHaveLength(voters)
          expect(statuses.filter((s) => s === "changed")).toHaveLength(voters / 2)
          // Up: the 300 up-voters less the 150 of the first 200 who turned down, plus the 50 who turned up.
          const counters = (yield* catalog.find(input.id)).counters
          expect(counters).toEqual({ up: input.seed.up + 300 - 150 + 50, down: input.seed.down + 100 - 50 + 150 })
          expect(yield* drifted).toEqual([])
          expect(yield* transactionsOf(input.id)).toBeLessThan(voters / 4)
        })
      )

      it.effect("each vote of a group gets its own outcome: recorded, unchanged, changed, and the counters after it", () =>
        Effect.gen(function* () {
          const catalog = yield* CatalogStore
          const ledger = yield* VoteLedger
          const input = inputs[1]!
          yield* catalog.upsert([input])
          const ballots: ReadonlyArray<readonly [string, VoteDirection]> = [
            ["ann", "up"],
            ["ann", "up"],
            ["ben", "down"],
            ["ben", "up"],
            ["cid", "down"],
            ["ann", "down"]
          ]
          // A vote in flight first, so the six wait and go together, in the order they came.
          const results = yield* Effect.forEach(
            [["opener", "up"] as const, ...ballots],
            ([voter, direction]) => ledger.cast({ entity: input.id, voter: addressVoter(`outcome-${voter}`), direction }),
            { concurrency: "unbounded" }
          )
          const { up, down } = input.seed
          expect(results.map((r) => [r.status, r.counting, r.counters])).toEqual([
            ["recorded", "counted", { up: up + 1, down }],
            ["recorded", "counted", { up: up + 2, down }],
            ["unchanged", "counted", { up: up + 2, down }],
            ["recorded", "counted", { up: up + 2, down: down + 1 }],
            ["changed", "counted", { up: up + 3, down }],
            ["recorded", "counted", { up: up + 3, down: down + 1 }],
            ["changed", "counted", { up: up + 2, down: down + 2 }]
          ])
          expect((yield* catalog.find(input.id)).counters).toEqual({ up: up + 2, down: down + 2 })
          expect(yield* transactionsOf(input.id)).toBeLessThan(results.length)
          expect(yield* drifted).toEqual([])
        })
      )

      it.effect("a refused or failing vote in a group leaves the others of its group cast and counted", () =>
        Effect.gen(function* () {
          const catalog = yield* CatalogStore
          const ledger = yield* VoteLedger
          const sql = yield* SqlClient.SqlClient
          const input = inputs[2]!
          yield* catalog.upsert([input])
          const revoked = "5d1c7c2e-2a4b-4f7e-9a51-0c7f6b1d2e3a" as AgentId
          yield* sql`INSERT INTO agents (id, kind, name, key_hash, created_at, revoked_at)
            VALUES (${revoked}, 'registered', 'revoked-in-a-group', 'hash-of-a-revoked-key', now(), now())`
          const fine = (voter: string) => ({ entity: input.id, voter: addressVoter(`refusal-${voter}`), direction: "up" as const })
          const outcomes = yield* Effect.forEach(
            [
              () => ledger.castWithin([limitOf("voter:refusal-opener")], fine("opener")),
              () => ledger.castWithin([limitOf("voter:refusal-a")], fine("a")),
              // The same bucket of one token, twice: the second is refused.
              () => ledger.castWithin([limitOf("voter:refusal-spent", 1)], fine("spent-1")),
              () => ledger.castWithin([limitOf("voter:refusal-spent", 1)], fine("spent-2")),
              () => ledger.castWithin([limitOf("voter:refusal-b")], { entity: input.id, voter: agentVoter(revoked), direction: "up" }),
              // A ballot the ledger cannot hold (its direction is neither up nor down): it fails alone.
              () =>
                ledger.castWithin([limitOf("voter:refusal-c")], {
                  ...fine("broken"),
                  direction: "sideways" as unknown as VoteDirection
                }),
              () => ledger.castWithin([limitOf("voter:refusal-d")], fine("d"))
            ],
            (cast) =>
              Effect.match(cast(), {
                onFailure: (error) => error._tag,
                onSuccess: (c) => (c._tag === "Cast" ? c.result.status : c._tag)
              }),
            { concurrency: "unbounded" }
          )
          expect(outcomes).toEqual(["recorded", "recorded", "recorded", "Limited", "AgentRevoked", "StoreError", "recorded"])
          expect((yield* catalog.find(input.id)).counters).toEqual({ up: input.seed.up + 4, down: input.seed.down })
          expect(yield* drifted).toEqual([])
        })
      )

      it.effect("concurrent votes on many products, by id and by slug, go in shared calls and each product counts its own exactly", () =>
        Effect.gen(function* () {
          const catalog = yield* CatalogStore
          const ledger = yield* VoteLedger
          const sql = yield* SqlClient.SqlClient
          const products = inputs.slice(5, 25)
          yield* catalog.upsert(products)
          const slugs = new Map((yield* Effect.forEach(products, (p) => catalog.find(p.id))).map((p) => [p.id as string, p.slug]))
          const gone = products[0]!
          yield* sql`UPDATE products SET removed_at = now() WHERE id = ${gone.id}`
          const votes = Array.from({ length: 300 }, (_, i) => ({ product: products[i % products.length]!, i }))
          const outcomes = yield* Effect.forEach(
            [
              ...votes.map(({ product, i }) => ({ entity: i % 3 === 0 ? slugs.get(product.id)! : product.id, i })),
              { entity: "no-such-product", i: -1 }
            ],
            ({ entity, i }) =>
              Effect.match(
                ledger.castWithin([limitOf(`voter:spread-${i}`)], {
                  entity,
                  voter: addressVoter(`spread-${i}`),
                  direction: i % 5 === 0 ? "down" : "up"
                }),
                { onFailure: (error) => error._tag, onSuccess: (c) => (c._tag === "Cast" ? c.result.status : c._tag) }
              ),
            { concurrency: "unbounded" }
          )
          expect(outcomes.filter((o) => o === "recorded")).toHaveLength(300 - 15)
          expect(outcomes.filter((o) => o === "ProductRemoved")).toHaveLength(15)
          expect(outcomes.at(-1)).toBe("ProductNotFound")
          for (const product of products.slice(1)) {
            const mine = votes.filter((v) => v.product.id === product.id)
            expect((yield* catalog.find(product.id)).counters).toEqual({
              up: product.seed.up + mine.filter((v) => v.i % 5 !== 0).length,
              down: product.seed.down + mine.filter((v) => v.i % 5 === 0).length
            })
          }
          expect(yield* drifted).toEqual([])
          const [calls] = yield* sql<{ n: number }>`
              SELECT count(DISTINCT xmin::text)::int AS n FROM votes WHERE voter LIKE 'ip:spread-%'`
          expect(calls?.n).toBeLessThan(300 / 4)
        })
      )

      it.effect("the one-vote calls of the previous release (productdir_cast_vote, _within) vote by the same rule", () =>
        Effect.gen(function* () {
          const catalog = yield* CatalogStore
          const sql = yield* SqlClient.SqlClient
          const input = inputs[3]!
          yield* catalog.upsert([input])
          const ballot = (direction: VoteDirection) =>
            JSON.stringify({ product_id: input.id, voter: "ip:previous-release", direction, at: new Date().toISOString() })
          const limits = JSON.stringify([{ key: "voter:previous-release", max: 1, window_ms: 60_000 }])
          const within = () =>
            sql<{ limit_tokens: Array<number>; outcome: string; status: string | null; trust_up: string | number | null }>`
              SELECT limit_tokens, outcome, status, trust_up FROM productdir_cast_vote_within(${limits}::jsonb, ${ballot("up")}::jsonb)`
          const [first] = yield* within()
          expect([first?.limit_tokens, first?.outcome, first?.status, Number(first?.trust_up)]).toEqual([
            [1],
            "cast",
            "recorded",
            input.seed.up + 1
          ])
          const [second] = yield* within()
          expect([second?.outcome, second?.status]).toEqual(["limited", null])
          const [changed] = yield* sql<{ outcome: string; status: string }>`
            SELECT outcome, status FROM productdir_cast_vote(${ballot("down")}::jsonb)`
          expect([changed?.outcome, changed?.status]).toEqual(["cast", "changed"])
          expect((yield* catalog.find(input.id)).counters).toEqual({ up: input.seed.up, down: input.seed.down + 1 })
          expect(yield* drifted).toEqual([])
        })
      )
    })
  })

const { pglite, server } = testStores()
reportLeftOut("votes on one product in groups", storesLeftOut())
if (pglite) behaviours("pglite", layerPglite())
if (server !== undefined) {
  behaviours("postgres", Layer.unwrap(Effect.map(freshDatabaseUrl(server), ({ url }) => layerPostgres(Redacted.make(url)))))
}
