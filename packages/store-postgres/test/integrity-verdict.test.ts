/**
 * A verdict's released votes are written a statement of RELEASE_BATCH at a time (src/SqlIntegrityLedger.ts),
 * in its one transaction: a verdict releasing more than one statement writes, each product's votes spread
 * over every statement, counts every one exactly once, moves the counters by exactly those votes, and
 * teaches each product the week rate of all of its released votes (what one statement taught before). On
 * PGlite, and on the server when DATABASE_URL is set.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { IntegrityLedger, SLOW_SECONDS, type VoteKey } from "@productdir/domain"
import { layerPglite, layerPostgres } from "../src/index.ts"
import { freshDatabaseUrl, testStores } from "../src/testing.ts"

const NOW = new Date("2031-03-01T12:00:00.000Z")
/** More than two statements' worth (RELEASE_BATCH is 10,000), so that one lands whole between two others. */
const HELD = 23_456

const behaviours = (name: string, store: Layer.Layer<IntegrityLedger | SqlClient.SqlClient, unknown>) =>
  describe(`a verdict releasing more held votes than one statement writes (${name})`, () => {
    layer(store, { timeout: 120_000 })((it) => {
      it.effect("counts each exactly once, moves the counters by them, teaches each product all of their rate", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const ledger = yield* IntegrityLedger
          yield* sql`
            INSERT INTO products (id, slug, name, name_key, category, content, seed_up, seed_down, trust_up, trust_down)
            SELECT md5('vp' || i)::uuid, 'verdict-' || i, 'V ' || i, 'v ' || i, 'Verdict', '{}'::jsonb, 10, 5, 10 + 3, 5 + 7
            FROM generate_series(0, 2) i`
          // Three products' held votes, interleaved, so that every statement releases some of each; and counted votes beside.
          yield* sql`
            INSERT INTO votes (product_id, voter, direction, created_at, updated_at, counting)
            SELECT md5('vp' || (i % 3))::uuid, 'ip:held-' || i, CASE WHEN i % 4 = 0 THEN 'down' ELSE 'up' END, t.at, t.at, 'held'
            FROM generate_series(0, ${HELD - 1}::int) i
            CROSS JOIN LATERAL (SELECT ${NOW}::timestamptz - (i % 5000) * interval '1 minute' AS at) t`
          yield* sql`
            INSERT INTO votes (product_id, voter, direction, created_at, updated_at, counting)
            SELECT md5('vp' || (i % 3))::uuid, 'ip:counted-' || i, CASE WHEN i < 9 THEN 'up' ELSE 'down' END, ${NOW}, ${NOW}, 'counted'
            FROM generate_series(0, 29) i`
          const expected = yield* sql<{ id: string; up: number; down: number; slow: number }>`
            SELECT p.id::text,
              (p.seed_up + count(*) FILTER (WHERE v.direction = 'up' AND v.counting IN ('held', 'counted')))::int AS up,
              (p.seed_down + count(*) FILTER (WHERE v.direction = 'down' AND v.counting IN ('held', 'counted')))::int AS down,
              sum(exp(-extract(epoch FROM ${NOW}::timestamptz - v.created_at) / ${SLOW_SECONDS}::float8)) FILTER (WHERE v.counting = 'held')::float8 AS slow
            FROM products p JOIN votes v ON v.product_id = p.id
            WHERE p.slug LIKE 'verdict-%' GROUP BY p.id ORDER BY p.id`
          // The counters agree with the ledger before: seed + the counted votes (3 up and 7 down a product).
          const counted = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM votes WHERE counting = 'counted'`
          expect(counted[0]!.n).toBe(30)

          const held = yield* sql<{ product_id: string; voter: string }>`
            SELECT product_id::text, voter FROM votes WHERE counting = 'held' ORDER BY voter`
          const release: ReadonlyArray<VoteKey> = held.map((v) => ({ productId: v.product_id as VoteKey["productId"], voter: v.voter }))
          const applied = yield* ledger.apply({ groups: [], release }, NOW)

          expect(applied.released).toBe(HELD)
          expect(applied.recounted.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id))
          const left = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM votes WHERE counting = 'held'`
          expect(left[0]!.n).toBe(0)
          const after = yield* sql<{ id: string; up: number; down: number; slow: number }>`
            SELECT id::text, trust_up::int AS up, trust_down::int AS down, rate_slow::float8 AS slow
            FROM products WHERE slug LIKE 'verdict-%' ORDER BY id`
          expect(after.map(({ id, up, down }) => ({ id, up, down }))).toEqual(expected.map(({ id, up, down }) => ({ id, up, down })))
          for (const [k, row] of after.entries()) expect(row.slow).toBeCloseTo(expected[k]!.slow, 6)

          // Released again, nothing moves: they are counted already.
          const again = yield* ledger.apply({ groups: [], release }, NOW)
          expect(again.released).toBe(0)
          const still = yield* sql<{ id: string; up: number; down: number }>`
            SELECT id::text, trust_up::int AS up, trust_down::int AS down FROM products WHERE slug LIKE 'verdict-%' ORDER BY id`
          expect(still).toEqual(expected.map(({ id, up, down }) => ({ id, up, down })))
        })
      )
    })
  })

const { pglite, server } = testStores()
reportLeftOut("a verdict releasing more held votes than one statement writes", storesLeftOut())
if (pglite) behaviours("pglite", layerPglite())
if (server !== undefined)
  behaviours("postgres", Layer.unwrap(Effect.map(freshDatabaseUrl(server), ({ url }) => layerPostgres(Redacted.make(url)))))
