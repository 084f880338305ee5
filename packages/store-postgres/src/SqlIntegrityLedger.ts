/**
 * IntegrityLedger on PostgreSQL. The window is read in one transaction: the votes it holds copied to a
 * temporary table, numbered densely (products, voters, networks), and sent as columns of integers in
 * chunks, so a window of millions of votes is a few arrays, not millions of rows. A verdict is written
 * in one transaction, products locked first in id order as every writer does, then the votes, then
 * the recount under those locks.
 */
import { Effect, Layer } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import {
  type GroupDecision,
  type GroupEvidence,
  GroupNotFound,
  type GroupStatus,
  IntegrityLedger,
  type LedgerWindow,
  type ProductId,
  type StandingRule,
  type Verdict,
  type VoteGroup
} from "@productdir/domain"
import { Announcer } from "./ChangeFeed.ts"
import { retryDeadlocks } from "./deadlocks.ts"
import { storeError } from "./errors.ts"
import { recount } from "./recount.ts"

/** Votes sent per chunk of the window's columns. */
const CHUNK = 250_000

/** A window this large gets statistics for its temporary tables and an index on its columns' order. */
const LARGE_WINDOW = 100_000

interface GroupRow {
  readonly id: string
  readonly status: GroupStatus
  readonly found_at: Date
  readonly decided_at: Date | null
  readonly evidence: GroupEvidence
}

const toGroup = (row: GroupRow): VoteGroup => ({
  id: row.id,
  status: row.status,
  foundAt: row.found_at,
  decidedAt: row.decided_at,
  evidence: row.evidence
})

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const pg = yield* PgClient.PgClient
  const announcer = yield* Announcer

  const window = (since: Date) =>
    Effect.gen(function* () {
      yield* sql`
        CREATE TEMP TABLE pass_votes ON COMMIT DROP AS
        SELECT v.product_id, v.voter, v.network, v.updated_at, v.counting, v.direction, coalesce(g.status = 'cleared', false) AS cleared
        FROM votes v LEFT JOIN vote_groups g ON g.id = v.group_id
        WHERE v.revoked_at IS NULL AND (v.updated_at >= ${since} OR v.counting = 'held')`
      // The window starts at `since`, or earlier at the oldest held vote it holds.
      const [{ start, votes }] = (yield* sql<{
        start: Date | null
        votes: number
      }>`SELECT least(${since}::timestamptz, min(updated_at)) AS start, count(*)::int AS votes FROM pass_votes`) as [
        { start: Date | null; votes: number }
      ]
      // Statistics and an index pay for themselves on a large window only; on a small one they are writes
      // for nothing (catalog rows: a check on a nearly full disk would fail for them).
      const large = votes >= LARGE_WINDOW
      const from = start ?? since
      yield* sql`
        CREATE TEMP TABLE pass_products ON COMMIT DROP AS
        SELECT product_id, (row_number() OVER (ORDER BY product_id) - 1)::int AS n FROM (SELECT DISTINCT product_id FROM pass_votes) d`
      yield* sql`
        CREATE TEMP TABLE pass_voters ON COMMIT DROP AS
        SELECT voter, (row_number() OVER (ORDER BY voter COLLATE "C") - 1)::int AS n FROM (SELECT DISTINCT voter FROM pass_votes) d`
      yield* sql`
        CREATE TEMP TABLE pass_networks ON COMMIT DROP AS
        SELECT network, (row_number() OVER (ORDER BY network COLLATE "C") - 1)::int AS n
        FROM (SELECT DISTINCT network FROM pass_votes WHERE network IS NOT NULL) d`
      const products = yield* sql<{ id: string }>`SELECT product_id::text AS id FROM pass_products ORDER BY n`
      const voters = yield* sql<{ voter: string; standing: boolean }>`
        SELECT p.voter, (a.standing_since IS NOT NULL) AS standing
        FROM pass_voters p LEFT JOIN agents a ON p.voter LIKE 'agent:%' AND a.id::text = substr(p.voter, 7)
        ORDER BY p.n`
      const networks = yield* sql<{ network: string }>`SELECT network FROM pass_networks ORDER BY n`
      // Temporary tables have no statistics until analysed: without them the planner joined ten million
      // votes by merge joins over four external sorts (35-53 s at 10M votes; docs/benchmarks.md).
      if (large) yield* sql`ANALYZE pass_votes, pass_products, pass_voters, pass_networks`
      yield* sql`
        CREATE TEMP TABLE pass_columns ON COMMIT DROP AS
        SELECT (row_number() OVER (ORDER BY p.n, u.n) - 1)::int AS k, p.n AS product, u.n AS voter, coalesce(w.n, -1) AS network,
          floor(extract(epoch FROM v.updated_at - ${from}::timestamptz))::int AS seconds,
          CASE v.counting WHEN 'counted' THEN 0 WHEN 'held' THEN 1 ELSE 2 END AS counting,
          CASE v.direction WHEN 'up' THEN 0 ELSE 1 END AS direction,
          CASE WHEN v.cleared THEN 1 ELSE 0 END AS cleared
        FROM pass_votes v JOIN pass_products p USING (product_id) JOIN pass_voters u USING (voter)
        LEFT JOIN pass_networks w USING (network)`
      // Each chunk is a range of k: without an index every chunk read scanned the whole table.
      if (large) yield* sql`CREATE INDEX ON pass_columns (k)`
      const [{ n }] = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pass_columns`) as [{ n: number }]
      const columns = {
        product: new Int32Array(n),
        voter: new Int32Array(n),
        network: new Int32Array(n),
        seconds: new Int32Array(n),
        counting: new Uint8Array(n),
        direction: new Uint8Array(n),
        cleared: new Uint8Array(n)
      }
      for (let at = 0; at < n; at += CHUNK) {
        const [chunk] = yield* sql<Record<keyof typeof columns, ReadonlyArray<number>>>`
          SELECT array_agg(product ORDER BY k) AS product, array_agg(voter ORDER BY k) AS voter, array_agg(network ORDER BY k) AS network,
            array_agg(seconds ORDER BY k) AS seconds, array_agg(counting ORDER BY k) AS counting,
            array_agg(direction ORDER BY k) AS direction, array_agg(cleared ORDER BY k) AS cleared
          FROM pass_columns WHERE k >= ${at} AND k < ${at + CHUNK}`
        for (const name of Object.keys(columns) as Array<keyof typeof columns>) columns[name].set(chunk![name], at)
      }
      return {
        since: from,
        products: products.map((p) => p.id as ProductId),
        voters: voters.map((v) => v.voter),
        networks: networks.map((w) => w.network),
        ...columns,
        standing: Uint8Array.from(voters, (v) => (v.standing ? 1 : 0))
      } satisfies LedgerWindow
    }).pipe(sql.withTransaction, storeError("integrity window"))

  const groups = sql<GroupRow>`SELECT id::text, status, found_at, decided_at, evidence FROM vote_groups ORDER BY found_at DESC, id`.pipe(
    Effect.map((rows) => rows.map(toGroup)),
    storeError("vote groups")
  )

  /** Locks `ids` in id order and stamps them changed (a vote's counting changes a product's reads even when its counters stay). */
  const lockAndStamp = (ids: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      if (ids.length === 0) return
      yield* sql`SELECT id FROM products WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR UPDATE`
      yield* sql`UPDATE products SET rate_at = rate_at WHERE id = ANY(${ids}::uuid[])`
    })

  const apply = (verdict: Verdict, at: Date) =>
    Effect.gen(function* () {
      const discounting = verdict.groups
        .filter((g) => g.discount)
        .flatMap((g) => g.votes.map((v) => ({ product_id: v.productId, voter: v.voter, group_id: g.id })))
      // A group for review: its votes are marked as its own and keep counting, until an operator confirms it.
      const marking = verdict.groups
        .filter((g) => !g.discount)
        .flatMap((g) => g.votes.map((v) => ({ product_id: v.productId, voter: v.voter, group_id: g.id })))
      const releasing = verdict.release.map((v) => ({ product_id: v.productId, voter: v.voter }))
      const touchedIds = [...new Set([...discounting.map((v) => v.product_id), ...releasing.map((v) => v.product_id)])].sort()
      yield* lockAndStamp(touchedIds)
      if (verdict.groups.length > 0) {
        yield* sql`
          INSERT INTO vote_groups AS g (id, status, found_at, evidence)
          SELECT x.id, 'suspected', ${at}, x.evidence FROM jsonb_to_recordset(${pg.json(
            verdict.groups.map((g) => ({ id: g.id, evidence: g.evidence }))
          )}) AS x(id uuid, evidence jsonb)
          ON CONFLICT (id) DO UPDATE SET evidence = EXCLUDED.evidence WHERE g.status <> 'cleared'`
      }
      const discounted =
        discounting.length === 0
          ? []
          : yield* sql<{ product_id: string }>`
              UPDATE votes v SET counting = 'discounted', group_id = x.group_id
              FROM jsonb_to_recordset(${pg.json(discounting)}) AS x(product_id uuid, voter text, group_id uuid)
              JOIN vote_groups g ON g.id = x.group_id AND g.status <> 'cleared'
              WHERE v.product_id = x.product_id AND v.voter = x.voter AND v.counting <> 'discounted'
                AND NOT EXISTS (SELECT 1 FROM vote_groups c WHERE c.id = v.group_id AND c.status = 'cleared')
              RETURNING v.product_id`
      if (marking.length > 0) {
        yield* sql`
          UPDATE votes v SET group_id = x.group_id
          FROM jsonb_to_recordset(${pg.json(marking)}) AS x(product_id uuid, voter text, group_id uuid)
          JOIN vote_groups g ON g.id = x.group_id AND g.status <> 'cleared'
          WHERE v.product_id = x.product_id AND v.voter = x.voter AND v.group_id IS NULL`
      }
      const released =
        releasing.length === 0
          ? []
          : yield* sql<{ product_id: string }>`
              UPDATE votes v SET counting = 'counted'
              FROM jsonb_to_recordset(${pg.json(releasing)}) AS x(product_id uuid, voter text)
              WHERE v.product_id = x.product_id AND v.voter = x.voter AND v.counting = 'held'
              RETURNING v.product_id`
      const recounted = yield* recount(sql, touchedIds)
      return { applied: { discounted: discounted.length, released: released.length, recounted }, touched: touchedIds }
    }).pipe(
      sql.withTransaction,
      retryDeadlocks,
      storeError("integrity verdict"),
      Effect.tap(({ touched }) => announcer.announce(touched.map((id) => ({ id: id as ProductId })))),
      Effect.map(({ applied }) => applied)
    )

  /** A group whose votes are discounted (Integrity.ts, `discounts`), as SQL over `g`. */
  const discounting = sql.literal(
    "(g.status = 'confirmed' OR (g.status = 'suspected' AND coalesce((g.evidence->>'review')::boolean, false) = false))"
  )

  const settleStanding = (rule: StandingRule, at: Date) =>
    Effect.gen(function* () {
      const bornBefore = new Date(at.getTime() - rule.minAgeSeconds * 1000)
      const settledBefore = new Date(at.getTime() - rule.settledSeconds * 1000)
      // Members of a group not cleared hold no standing, and gain none.
      yield* sql`
        UPDATE agents a SET standing_since = NULL
        WHERE a.standing_since IS NOT NULL AND EXISTS (
          SELECT 1 FROM vote_groups g WHERE ${discounting} AND g.evidence->'members' ? ('agent:' || a.id::text))`
      const gained = yield* sql<{ id: string }>`
        UPDATE agents a SET standing_since = ${at}
        WHERE a.standing_since IS NULL AND a.revoked_at IS NULL AND a.created_at <= ${bornBefore}
          AND NOT EXISTS (
            SELECT 1 FROM vote_groups g WHERE ${discounting} AND g.evidence->'members' ? ('agent:' || a.id::text))
          AND (SELECT count(*) FROM votes v
               WHERE v.voter LIKE 'agent:%' AND v.voter = 'agent:' || a.id::text AND v.counting = 'counted'
                 AND v.revoked_at IS NULL AND v.updated_at <= ${settledBefore}) >= ${rule.minVotes}
        RETURNING a.id::text`
      return gained.length
    }).pipe(sql.withTransaction, retryDeadlocks, storeError("standing"))

  const decide = (id: string, status: "confirmed" | "cleared", at: Date) =>
    Effect.gen(function* () {
      const [row] =
        yield* sql<GroupRow>`SELECT id::text, status, found_at, decided_at, evidence FROM vote_groups WHERE id::text = ${id} FOR UPDATE`
      if (row === undefined) return yield* new GroupNotFound({ id })
      if (row.status === status)
        return { decision: { group: toGroup(row), changed: false, votes: 0, recounted: [] } satisfies GroupDecision, touched: [] }
      const products = yield* sql<{
        product_id: string
      }>`SELECT DISTINCT product_id::text FROM votes WHERE group_id = ${row.id}::uuid ORDER BY 1`
      const touched = products.map((p) => p.product_id)
      yield* lockAndStamp(touched)
      const [decided] = yield* sql<GroupRow>`
        UPDATE vote_groups SET status = ${status}, decided_at = ${at} WHERE id = ${row.id}::uuid
        RETURNING id::text, status, found_at, decided_at, evidence`
      const moved = yield* status === "cleared"
        ? sql<{
            n: number
          }>`UPDATE votes SET counting = 'counted' WHERE group_id = ${row.id}::uuid AND counting = 'discounted' RETURNING 1 AS n`
        : sql<{
            n: number
          }>`UPDATE votes SET counting = 'discounted' WHERE group_id = ${row.id}::uuid AND counting <> 'discounted' RETURNING 1 AS n`
      if (status === "confirmed") {
        yield* sql`
          UPDATE agents SET standing_since = NULL
          WHERE standing_since IS NOT NULL AND ${pg.json(row.evidence.members)}::jsonb ? ('agent:' || id::text)`
      }
      const recounted = yield* recount(sql, touched)
      return { decision: { group: toGroup(decided!), changed: true, votes: moved.length, recounted } satisfies GroupDecision, touched }
    }).pipe(
      sql.withTransaction,
      retryDeadlocks,
      storeError("group decision"),
      Effect.tap(({ touched }) => announcer.announce(touched.map((p) => ({ id: p as ProductId })))),
      Effect.map(({ decision }) => decision)
    )

  return IntegrityLedger.of({ window, groups, apply, settleStanding, decide })
})

export const layer = Layer.effect(IntegrityLedger, make)
