/**
 * The integrity pass's window read (src/windowOfRecentVotes.ts) against the ledger read plainly in SQL: a
 * ledger of a few thousand votes on 25 products, 5 of them with no held vote (agents with and without standing, addresses,
 * voters and networks keyed as the service keys them and otherwise (letters of several bytes, texts that
 * are each other's prefixes), votes without a network, a cleared
 * group's votes, held votes older than the window, revoked votes and votes too old to be read), read in
 * one chunk and a page at a time (the keys' numbers are kept across chunks). Networks are read for the votes of
 * products with a held vote, and only those (LedgerWindow.networkOf). The store contract
 * (packages/testkit) holds the memory store to the same read. On PGlite, and on the server when
 * DATABASE_URL is set.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { type LedgerWindow, productOf } from "@productdir/domain"
import { layerPglite, layerPostgres } from "../src/index.ts"
import { readWindow } from "../src/windowOfRecentVotes.ts"
import { freshDatabaseUrl, testStores } from "../src/testing.ts"

const NOW = Date.parse("2031-03-01T12:00:00.000Z")
const SINCE = new Date(NOW - 8 * 86_400_000)

/** `count` products, whose ids are md5(`key` || i) for i from 0. */
const products = (sql: SqlClient.SqlClient, key: string, count: number) =>
  sql`
    INSERT INTO products (id, slug, name, name_key, category, content)
    SELECT md5(${key} || i)::uuid, ${`window-${key}-`} || i, ${`W${key} `} || i, ${`w${key} `} || i, 'Window', '{}'::jsonb
    FROM generate_series(0, ${count - 1}::int) i`

/** The window's votes read plainly in SQL, by product, then voter, with their times. */
const readPlainly = (sql: SqlClient.SqlClient) =>
  sql<{ product: string; voter: string; at: Date }>`
    SELECT v.product_id::text AS product, v.voter, v.updated_at AS at
    FROM votes v
    WHERE v.revoked_at IS NULL AND (v.updated_at >= ${SINCE} OR v.counting = 'held')
    ORDER BY v.product_id, v.voter COLLATE "C"`

/** Rows read plainly as `plainly` gives a window's: their times in seconds from its start. */
const fromStart = (rows: ReadonlyArray<{ product: string; voter: string; at: Date }>, since: Date) =>
  rows.map((r) => ({ product: r.product, voter: r.voter, seconds: Math.floor((r.at.getTime() - since.getTime()) / 1000) }))

/** The ledger: every vote by (product, voter), with times in whole milliseconds. */
const ledger = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    yield* products(sql, "wp", 25)
    yield* sql`
      INSERT INTO agents (id, kind, name, key_hash, key_hint, created_at, standing_since)
      SELECT md5('wa' || j)::uuid, 'registered', 'window agent ' || j, md5('wk' || j), 'w', ${new Date(NOW - 40 * 86_400_000)},
        CASE WHEN j % 2 = 0 THEN ${new Date(NOW - 30 * 86_400_000)}::timestamptz END
      FROM generate_series(0, 59) j`
    yield* sql`
      INSERT INTO vote_groups (id, status, found_at, evidence)
      VALUES (md5('wg-cleared')::uuid, 'cleared', ${new Date(NOW)}, '{}'::jsonb), (md5('wg-open')::uuid, 'suspected', ${new Date(NOW)}, '{}'::jsonb)`
    yield* sql`
      INSERT INTO votes (product_id, voter, direction, created_at, updated_at, counting, network, revoked_at, group_id)
      SELECT md5('wp' || (i % 25))::uuid,
        -- The service's own keys (sent as 16 bytes), and other texts of voters (sent whole): near misses of both forms.
        CASE (i / 20) % 9
          WHEN 1 THEN 'ip:' || upper(md5('wi' || ((i / 20) % 300)))
          WHEN 2 THEN 'ip:' || ((i / 20) % 300)
          WHEN 3 THEN 'agent:' || md5('wa' || ((i / 20) % 300))
          WHEN 4 THEN 'agent:' || md5('wa' || ((i / 20) % 300))::uuid || '-'
          WHEN 5 THEN 'agent:' || upper(md5('wa' || ((i / 20) % 300))::uuid::text)
          WHEN 6 THEN 'agent:' || overlay(md5('wa' || ((i / 20) % 300))::uuid::text PLACING '-a' FROM 8 FOR 2)
          -- Letters of more than one byte, and texts that are each other's prefixes ('ip:ü1', 'ip:ü12').
          WHEN 7 THEN 'ip:ü' || ((i / 20) % 300) || repeat('ß', (i / 20) % 4)
          ELSE CASE WHEN (i / 20) % 3 = 0 THEN 'agent:' || md5('wa' || ((i / 20) % 300))::uuid ELSE 'ip:' || md5('wi' || ((i / 20) % 300)) END
        END,
        CASE WHEN i % 5 = 0 THEN 'down' ELSE 'up' END, t.at, t.at,
        CASE WHEN i % 13 = 0 AND i % 25 < 20 THEN 'held' WHEN i % 17 = 0 THEN 'discounted' ELSE 'counted' END,
        CASE WHEN i % 11 = 0 THEN NULL WHEN i % 3 = 0 THEN md5('wn' || (i % 37)) WHEN i % 3 = 1 THEN upper(md5('wn' || (i % 41)))
          WHEN i % 7 = 0 THEN 'nét-' || (i % 37) ELSE 'net-' || (i % 37) END,
        CASE WHEN i % 29 = 0 THEN t.at END,
        CASE WHEN i % 19 = 0 THEN md5('wg-cleared')::uuid WHEN i % 23 = 0 THEN md5('wg-open')::uuid END
      FROM generate_series(0, 5999) i
      CROSS JOIN LATERAL (SELECT ${new Date(NOW)}::timestamptz - (i * 173 % 864000) * interval '1 second' - (i % 1000) * interval '1 millisecond' AS at) t
      ON CONFLICT DO NOTHING`
  })

/** The window's votes as rows, in its order. */
const rowsOf = (window: LedgerWindow) =>
  Array.from(window.voter, (_, i) => ({
    product: window.products[productOf(window, i)]!,
    voter: window.voters[window.voter[i]!]!,
    network: window.networkOf(i) < 0 ? null : window.networks[window.networkOf(i)]!,
    seconds: window.seconds[i]!,
    counting: window.counting[i]!,
    direction: window.direction[i]!,
    cleared: window.cleared[i]!,
    standing: window.standing[window.voter[i]!]!
  }))

/** A window's votes by their product's id, their voter's text and their time. */
const plainly = (window: LedgerWindow) =>
  Array.from(window.voter, (_, i) => ({
    product: window.products[productOf(window, i)]!,
    voter: window.voters[window.voter[i]!]!,
    seconds: window.seconds[i]!
  }))

const behaviours = (name: string, store: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  describe(`the integrity window read (${name})`, () => {
    layer(store, { timeout: "120 seconds" })((it) => {
      it.effect("reads every vote of the window as the plain SQL does, ordered by product then voter, in one chunk or many", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* ledger(sql)
          const expected = yield* sql<{
            product: string
            voter: string
            network: string | null
            at: Date
            counting: string
            direction: string
            cleared: boolean
            standing: boolean
          }>`
            SELECT v.product_id::text AS product, v.voter, v.network, v.updated_at AS at, v.counting, v.direction,
              coalesce(g.status = 'cleared', false) AS cleared, (a.standing_since IS NOT NULL) AS standing
            FROM votes v LEFT JOIN vote_groups g ON g.id = v.group_id
            LEFT JOIN agents a ON v.voter LIKE 'agent:%' AND a.id::text = substr(v.voter, 7)
            WHERE v.revoked_at IS NULL AND (v.updated_at >= ${SINCE} OR v.counting = 'held')
            ORDER BY v.product_id, v.voter COLLATE "C"`
          const [{ oldest }] = (yield* sql<{ oldest: Date }>`
            SELECT min(updated_at) AS oldest FROM votes WHERE revoked_at IS NULL AND counting = 'held'`) as [{ oldest: Date }]
          // Held votes reach back before `since`, and votes too old or revoked are in the ledger too.
          expect(oldest.getTime()).toBeLessThan(SINCE.getTime())
          const [{ all }] = (yield* sql<{ all: number }>`SELECT count(*)::int AS all FROM votes`) as [{ all: number }]
          expect(expected.length).toBeGreaterThan(1_000)
          expect(all).toBeGreaterThan(expected.length)

          const whole = yield* readWindow(sql, SINCE).pipe(sql.withTransaction)
          expect(whole.since).toEqual(oldest)
          const code = { counted: 0, held: 1, discounted: 2 } as Record<string, number>
          // A network is read where the pass asks for it: the votes of products with a held vote.
          const withHeld = new Set(expected.filter((r) => r.counting === "held").map((r) => r.product))
          expect(withHeld.size).toBe(20)
          const networkOf = (r: (typeof expected)[number]) => (withHeld.has(r.product) ? r.network : null)
          expect(rowsOf(whole)).toEqual(
            expected.map((r) => ({
              product: r.product,
              voter: r.voter,
              network: networkOf(r),
              seconds: Math.floor((r.at.getTime() - oldest.getTime()) / 1000),
              counting: code[r.counting],
              direction: r.direction === "up" ? 0 : 1,
              cleared: r.cleared ? 1 : 0,
              standing: r.standing ? 1 : 0
            }))
          )
          // Numbered in sorted order; every key numbered is used.
          expect([...whole.products]).toEqual([...new Set(expected.map((r) => r.product))].sort())
          expect([...whole.voters]).toEqual([...new Set(expected.map((r) => r.voter))].sort())
          expect([...whole.networks]).toEqual([...new Set(expected.flatMap((r) => (networkOf(r) === null ? [] : [r.network!])))].sort())
          // Each of these kinds of vote is there.
          const rows = rowsOf(whole)
          for (const seen of [
            rows.some((r) => r.network === null),
            rows.some((r) => r.cleared === 1),
            rows.some((r) => r.standing === 1),
            rows.some((r) => r.counting === 1),
            rows.some((r) => r.counting === 2),
            rows.some((r) => r.voter.includes("ß")),
            rows.some((r) => r.network?.startsWith("nét-") === true)
          ])
            expect(seen).toBe(true)

          // A page at a time: the same window.
          const paged = yield* readWindow(sql, SINCE, { pagesPerChunk: 1 }).pipe(sql.withTransaction)
          const [{ pages }] = (yield* sql<{ pages: number }>`
            SELECT (pg_relation_size('votes') / current_setting('block_size')::int)::int AS pages`) as [{ pages: number }]
          expect(pages).toBeGreaterThan(10)
          expect(rowsOf(paged)).toEqual(rows)
          expect(paged.since).toEqual(whole.since)
          // The product numbers' high bits carried in the time column while read and ordered (4 bits apart here, so
          // that 25 products use them): the same window.
          const split = yield* readWindow(sql, SINCE, { productLowBits: 4 }).pipe(sql.withTransaction)
          expect(rowsOf(split)).toEqual(rows)
        })
      )

      it.effect("orders thousands of products, their votes in the table in no order, as the plain SQL does", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          // 5,000 products more (the window orders a thousand products at a time, then each product), 30,000
          // votes, inserted in an order of their own: each page of the table holds votes of products far apart.
          yield* products(sql, "wm", 5_000)
          yield* sql`
            INSERT INTO votes (product_id, voter, direction, created_at, updated_at, counting)
            SELECT md5('wm' || ((i * 7919) % 5000))::uuid, 'ip:m' || (i % 997), 'up', t.at, t.at, CASE WHEN i % 31 = 0 THEN 'held' ELSE 'counted' END
            FROM generate_series(0, 29999) i
            CROSS JOIN LATERAL (SELECT ${new Date(NOW)}::timestamptz - (i * 37 % 600000) * interval '1 second' AS at) t
            ORDER BY md5(i::text)
            ON CONFLICT DO NOTHING`
          const expected = yield* readPlainly(sql)
          expect(expected.length).toBeGreaterThan(25_000)
          // Read as is, and with 4 bits of a product's number apart (ProductSplit): more than 4,096 products outgrow
          // the split partway through the read, which goes on with the whole numbers.
          for (const options of [{}, { productLowBits: 4 }]) {
            const window = yield* readWindow(sql, SINCE, options).pipe(sql.withTransaction)
            expect(window.products.length).toBeGreaterThan(5_000)
            expect(plainly(window)).toEqual(fromStart(expected, window.since))
          }
        })
      )

      it.effect("reads a window whose times outgrow the read's split: a vote held for two hundred days", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          // A vote held since 200 days ago starts the window: the last 8 days' votes are 192-200 days after it, past
          // the 2^24 s (194 days) the split keeps, the older ones before it, in no order in the table's pages.
          yield* products(sql, "wo", 40)
          yield* sql`
            INSERT INTO votes (product_id, voter, direction, created_at, updated_at, counting)
            SELECT md5('wo' || (i % 40))::uuid, 'ip:o' || i, 'up', t.at, t.at, CASE WHEN i % 7 = 0 THEN 'held' ELSE 'counted' END
            FROM generate_series(0, 1999) i
            CROSS JOIN LATERAL (SELECT ${new Date(NOW)}::timestamptz - (i * 347 % 691200) * interval '1 second' AS at) t
            ORDER BY md5(i::text)`
          yield* sql`
            INSERT INTO votes (product_id, voter, direction, created_at, updated_at, counting)
            VALUES (md5('wo3')::uuid, 'ip:o-patient', 'down', ${new Date(NOW - 200 * 86_400_000)}, ${new Date(NOW - 200 * 86_400_000)}, 'held')`
          const expected = yield* readPlainly(sql)
          const window = yield* readWindow(sql, SINCE, { pagesPerChunk: 1 }).pipe(sql.withTransaction)
          expect(window.since).toEqual(new Date(NOW - 200 * 86_400_000))
          const rows = plainly(window)
          expect(rows).toEqual(fromStart(expected, window.since))
          // Times on both sides of 2^24 s.
          expect(rows.some((r) => r.seconds < 2 ** 24) && rows.some((r) => r.seconds > 2 ** 24)).toBe(true)
        })
      )
    })
  })

const { pglite, server } = testStores()
reportLeftOut("the integrity window read", storesLeftOut())
if (pglite) behaviours("pglite", layerPglite())
if (server !== undefined)
  behaviours("postgres", Layer.unwrap(Effect.map(freshDatabaseUrl(server), ({ url }) => layerPostgres(Redacted.make(url)))))
