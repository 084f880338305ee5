/**
 * What the integrity pass's verdict writes to the products it touches (SqlIntegrityLedger.apply): each one
 * is written once, at its recount, and so stamped changed for the change feed (every API process reads
 * the feed to refresh what it holds), even when its counters do not move: a held vote discounted changes
 * the product's agent view ("votes waiting") and not its counters. On PGlite, and on the server when
 * DATABASE_URL is set.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { addressVoter, CatalogStore, fromImportRecord, IntegrityLedger, ledgerKey, type ProductId } from "@productdir/domain"
import { sampleRecords } from "@productdir/fixtures/sample"
import { layerPglite, layerPostgres } from "../src/index.ts"
import { freshDatabaseUrl, testStores } from "../src/testing.ts"

const [first, second] = sampleRecords()
const products = [first!, second!].map((record) => fromImportRecord(record, record.id as ProductId).input)

/** The transaction that last wrote the product (what the change feed reads), and its counters. */
const rowOf = (id: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql<{ stamp: string; up: number; down: number }>`
        SELECT changed_xid::text AS stamp, trust_up::int AS up, trust_down::int AS down FROM products WHERE id = ${id}`,
      (rows) => rows[0]!
    )
  )

const behaviours = (name: string, stores: Layer.Layer<CatalogStore | IntegrityLedger | SqlClient.SqlClient, unknown>) =>
  describe(`the integrity verdict's writes (${name})`, () => {
    layer(stores, { timeout: "60 seconds" })((it) => {
      it.effect("every product a verdict touches is stamped changed, its counters moved or not", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* (yield* CatalogStore).upsert(products)
          const [quiet, moved] = products.map((p) => p.id) as [ProductId, ProductId]
          // A held vote on each: one the verdict discounts (the counters stay), one it releases (they move).
          const held = ledgerKey(addressVoter("held-visitor"))
          for (const id of [quiet, moved])
            yield* sql`INSERT INTO votes (product_id, voter, direction, counting, network) VALUES (${id}, ${held}, 'up', 'held', 'net-1')`
          const before = { quiet: yield* rowOf(quiet), moved: yield* rowOf(moved) }
          const applied = yield* (yield* IntegrityLedger).apply(
            {
              groups: [
                {
                  id: "7d1c3f9e-2a4b-4c5d-8e6f-0a1b2c3d4e5f",
                  evidence: { method: "addresses", members: [held], products: [quiet], windows: [], networks: [], votes: 1 },
                  votes: [{ productId: quiet, voter: held }],
                  discount: true
                }
              ],
              release: [{ productId: moved, voter: held }]
            },
            new Date()
          )
          expect(applied).toMatchObject({ discounted: 1, released: 1 })
          const after = { quiet: yield* rowOf(quiet), moved: yield* rowOf(moved) }
          expect({ up: after.quiet.up, down: after.quiet.down }).toEqual({ up: before.quiet.up, down: before.quiet.down })
          expect(after.moved.up).toBe(before.moved.up + 1)
          // Both stamped by the verdict's transaction: the feed tells every process about both.
          expect(after.quiet.stamp).toBe(after.moved.stamp)
          expect(BigInt(after.quiet.stamp)).toBeGreaterThan(BigInt(before.quiet.stamp))
          expect(BigInt(after.moved.stamp)).toBeGreaterThan(BigInt(before.moved.stamp))
          // Only the product whose counters moved is reported recounted.
          expect(applied.recounted.map((r) => r.id)).toEqual([moved])
        })
      )

      it.effect("the rates a release teaches are written with the product's counters, to the microsecond of its rate time", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* (yield* CatalogStore).upsert(products)
          const id = products[1]!.id
          // A rate time later than the verdict's, to the microsecond (as a vote's cast in SQL sets it).
          yield* sql`UPDATE products SET rate_fast = 2, rate_slow = 5, rate_at = '2030-01-01T00:00:00.123456Z' WHERE id = ${id}`
          const voter = ledgerKey(addressVoter("taught-visitor"))
          yield* sql`
            INSERT INTO votes (product_id, voter, direction, counting, network, created_at, updated_at)
            VALUES (${id}, ${voter}, 'up', 'held', 'net-1', '2030-01-01T00:00:00.123456Z', '2030-01-01T00:00:00.123456Z')`
          const applied = yield* (yield* IntegrityLedger).apply(
            { groups: [], release: [{ productId: id, voter }] },
            new Date("2029-12-31T00:00:00Z")
          )
          expect(applied.released).toBe(1)
          const [row] = yield* sql<{ at: string; fast: number; slow: number }>`
            SELECT to_char(rate_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at, rate_fast AS fast, rate_slow AS slow
            FROM products WHERE id = ${id}`
          // Taught at its own rate time: nothing decays, and the released vote weighs 1 (cast at that very time).
          expect(row).toEqual({ at: "2030-01-01T00:00:00.123456", fast: 2, slow: 6 })
        })
      )
    })
  })

const { pglite, server } = testStores()
reportLeftOut("the integrity verdict's writes", storesLeftOut())
if (pglite) behaviours("pglite", layerPglite())
if (server !== undefined)
  behaviours("postgres", Layer.unwrap(Effect.map(freshDatabaseUrl(server), ({ url }) => layerPostgres(Redacted.make(url)))))
