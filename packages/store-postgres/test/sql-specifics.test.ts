/**
 * What the SQL store does that the store contract cannot see. What a vote
 * writes: the product's row and the ledger, never the product's search vector.
 * Every vote rewrites its product's row, a non-HOT update that adds the row to
 * each of the table's indexes again; with the vector in `products`, every vote
 * put its hundreds of lexemes into the GIN index once more (migration 7 keeps
 * it in `product_search`). How the server's connections are set up: without
 * parallel workers, which the planner's guess of thousands of matches for a
 * rare search word made it start for every such search (docs/database.md,
 * "Plans at 1,000,000 products"). On PGlite, and on the server when
 * DATABASE_URL is set.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { addressVoter, CatalogStore, fromImportRecord, type ProductId, VoteLedger } from "@productdir/domain"
import { sampleRecords } from "@productdir/fixtures/sample"
import { layerPglite, layerPostgres } from "../src/index.ts"
import { freshDatabaseUrl } from "../src/testing.ts"

const record = sampleRecords()[0]!
const input = fromImportRecord(record, record.id as ProductId).input

/** The search vector's row version (xmin changes whenever the row is written) and its text. */
const vectorOf = (id: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql<{
        version: string
        search: string
      }>`SELECT xmin::text AS version, search::text AS search FROM product_search WHERE product_id = ${id}`,
      (rows) => rows[0]
    )
  )

const behaviours = (name: string, stores: Layer.Layer<CatalogStore | VoteLedger | SqlClient.SqlClient, unknown>) =>
  describe(`votes and the search vector (${name})`, () => {
    layer(stores, { timeout: "60 seconds" })((it) => {
      it.effect("a vote rewrites the product's row, never its search vector; a change of its text does", () =>
        Effect.gen(function* () {
          const catalog = yield* CatalogStore
          const ledger = yield* VoteLedger
          yield* catalog.upsert([input])
          const before = yield* vectorOf(input.id)
          expect(before?.search).toContain(`'${input.content.name.toLowerCase().split(" ")[0]}'`)
          for (let i = 0; i < 5; i++) {
            const vote = { entity: input.id, voter: addressVoter(`voter-${i}`) }
            yield* ledger.castWithin(
              [{ key: `voter:test-${i}`, max: 10, windowSeconds: 60 }],
              i % 2 === 0 ? { ...vote, direction: "up" } : { ...vote, direction: "down", reason: "Slow sync" }
            )
          }
          expect((yield* catalog.find(input.id)).counters).toEqual({ up: input.seed.up + 3, down: input.seed.down + 2 })
          expect(yield* vectorOf(input.id)).toEqual(before)
          // Its text changes: the vector is written again, and search finds the new word.
          yield* catalog.upsert([
            { ...input, content: { ...input.content, ai_summary: `${input.content.ai_summary} Quokkaledger inside.` } }
          ])
          const after = yield* vectorOf(input.id)
          expect(after?.version).not.toBe(before?.version)
          expect(after?.search).toContain("'quokkaledg")
          const found = yield* catalog.list({ q: "quokkaledger", sort: "relevance", limit: 5 })
          expect(found.items.map((p) => p.id)).toEqual([input.id])
        })
      )
    })
  })

behaviours("pglite", layerPglite())
const server = process.env.DATABASE_URL
if (server !== undefined && server !== "") {
  const onServer = Layer.unwrap(Effect.map(freshDatabaseUrl(server), ({ url }) => layerPostgres(Redacted.make(url))))
  behaviours("postgres", onServer)
  describe("the server store's connections", () => {
    layer(onServer, { timeout: "60 seconds" })((it) => {
      it.effect("run without parallel workers, on every connection of the pool", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const settings = yield* Effect.forEach(
            Array.from({ length: 12 }),
            () => sql<{ setting: string }>`SELECT current_setting('max_parallel_workers_per_gather') AS setting, pg_sleep(0.05)`,
            { concurrency: "unbounded" }
          )
          expect(new Set(settings.map((rows) => rows[0]?.setting))).toEqual(new Set(["0"]))
        })
      )
    })
  })
}
