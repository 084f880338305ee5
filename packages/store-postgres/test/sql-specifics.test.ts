/**
 * What the SQL store does that the store contract cannot see. What a vote
 * writes: the product's row and the ledger, never the product's search vector.
 * Every vote rewrites its product's row, a non-HOT update that adds the row to
 * each of the table's indexes again; with the vector in `products`, every vote
 * put its hundreds of lexemes into the GIN index once more (migration 7 keeps
 * it in `product_search`). What an upsert writes: the vectors of the search
 * function and the vocabulary's words, from one parse. How the server's
 * connections are set up: without parallel workers, which the planner's guess
 * of thousands of matches for a rare search word made it start for every such
 * search (docs/database.md, "Plans at 1,000,000 products"), and without JIT,
 * which compiled the import's slug lookup at 1M products for each batch. On
 * PGlite, and on the server when DATABASE_URL is set.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { addressVoter, CatalogStore, fromImportRecord, type ProductId, VoteLedger } from "@productdir/domain"
import { sampleRecords } from "@productdir/fixtures/sample"
import { layerPglite, layerPostgres } from "../src/index.ts"
import { freshDatabaseUrl, testStores } from "../src/testing.ts"

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

      // The upsert spells the vector out to parse each text once (SqlCatalogStore.writeSearch); the
      // function of migration 5 stays the definition, and the vocabulary is every plain word.
      it.effect("the vectors an upsert writes are productdir_search_vector's, and every plain word is in the vocabulary", () =>
        Effect.gen(function* () {
          const catalog = yield* CatalogStore
          const sql = yield* SqlClient.SqlClient
          const inputs = sampleRecords()
            .slice(1, 6)
            .map((r) => fromImportRecord(r, r.id as ProductId).input)
          yield* catalog.upsert(inputs.slice(0, 3))
          // Two new, one changed, one unchanged, in one batch.
          const [first, second, third, fourth, fifth] = inputs as [typeof input, typeof input, typeof input, typeof input, typeof input]
          yield* catalog.upsert([
            fourth,
            { ...first, content: { ...first.content, name: `${first.content.name} Zwölf`, ai_summary: "Änderungen überall." } },
            second,
            fifth
          ])
          const ids = [first, second, third, fourth, fifth].map((i) => i.id)
          const rows = yield* sql<{ id: string; same: boolean; category: boolean }>`
            SELECT p.id, s.search = productdir_search_vector(p.name, p.category, productdir_search_body(p.content)) AS same,
                   s.category_key = lower(p.category) AS category
            FROM products p JOIN product_search s ON s.product_id = p.id WHERE p.id IN ${sql.in(ids)}`
          expect(rows.map((r) => [r.same, r.category])).toEqual(ids.map(() => [true, true]))
          const missing = yield* sql<{ word: string }>`
            SELECT w AS word FROM products p,
              unnest(tsvector_to_array(to_tsvector('simple', productdir_unaccent(concat_ws(' ', p.name, p.category, productdir_search_body(p.content)))))) AS w
            WHERE p.id IN ${sql.in(ids)}
            EXCEPT SELECT word FROM search_words`
          expect(missing).toEqual([])
          const words = yield* sql<{ word: string }>`SELECT word FROM search_words WHERE word IN ('zwolf', 'anderungen')`
          expect(words.map((w) => w.word).sort()).toEqual(["anderungen", "zwolf"])
        })
      )
    })
  })

const { pglite, server } = testStores()
reportLeftOut("votes and the search vector", storesLeftOut())
if (pglite) behaviours("pglite", layerPglite())
if (server !== undefined) {
  const onServer = Layer.unwrap(Effect.map(freshDatabaseUrl(server), ({ url }) => layerPostgres(Redacted.make(url))))
  behaviours("postgres", onServer)
  describe("the server store's connections", () => {
    layer(onServer, { timeout: "60 seconds" })((it) => {
      it.effect("run without parallel workers and without JIT, on every connection of the pool", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const settings = yield* Effect.forEach(
            Array.from({ length: 12 }),
            () =>
              sql<{
                setting: string
              }>`SELECT current_setting('max_parallel_workers_per_gather') || ' ' || current_setting('jit') AS setting, pg_sleep(0.05)`,
            { concurrency: "unbounded" }
          )
          expect(new Set(settings.map((rows) => rows[0]?.setting))).toEqual(new Set(["0 off"]))
        })
      )
    })
  })
  // The reconciliation reads the ledger in one statement: with no parallel workers allowed, the
  // planner read 10M votes in index order (45 s) instead of hashing a scan (3 s).
  describe("a batch job's connections (parallelQueries)", () => {
    const forJobs = Layer.unwrap(
      Effect.map(freshDatabaseUrl(server), ({ url }) => layerPostgres(Redacted.make(url), { parallelQueries: true, multiplex: false }))
    )
    layer(forJobs, { timeout: "60 seconds" })((it) => {
      it.effect("keep the server's parallel workers, still without JIT", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ workers: string; jit: string }>`
            SELECT current_setting('max_parallel_workers_per_gather') AS workers, current_setting('jit') AS jit`
          // The server's own setting (2 unless configured otherwise), not the 0 the API's connections ask for.
          expect(rows[0]?.workers).not.toBe("0")
          expect(rows[0]?.jit).toBe("off")
        })
      )
    })
  })
}
