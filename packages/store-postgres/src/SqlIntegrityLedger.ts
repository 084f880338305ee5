/**
 * IntegrityLedger on PostgreSQL. The window is read in one snapshot as columns of integers
 * (windowOfRecentVotes.ts), so a window of millions of votes is a few arrays, not millions of rows. A verdict is written
 * in one transaction, products locked first in id order as every writer does, then the votes, then
 * the recount under those locks.
 */
import { Effect, Layer } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import {
  type AgentId,
  agentLedgerKey,
  type GroupDecision,
  type GroupEvidence,
  GroupNotFound,
  type GroupStatus,
  IntegrityLedger,
  type ProductId,
  type Settled,
  SLOW_SECONDS,
  type StandingRule,
  type Verdict,
  type VoteGroup,
  type VoteKey
} from "@productdir/domain"
import { Announcer } from "./ChangeFeed.ts"
import { retryDeadlocks } from "./deadlocks.ts"
import { storeError } from "./errors.ts"
import { readWindow } from "./windowOfRecentVotes.ts"
import { type Moved, recount, taughtAt } from "./recount.ts"

/**
 * Released votes written a statement at a time (all in the verdict's one transaction): a statement's keys, their
 * JSON and the driver's message are ~2 MB, where a verdict's tens of thousands at once would be many times that,
 * at the pass's peak (docs/benchmarks.md). The verdict's keys are made as they are read (IntegrityPass).
 */
const RELEASE_BATCH = 10_000

/** A group whose votes are discounted (Integrity.ts, `discounts`), as SQL over `g`. */
const DISCOUNTING = "(g.status = 'confirmed' OR (g.status = 'suspected' AND coalesce((g.evidence->>'review')::boolean, false) = false))"

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

  const window = (since: Date) => readWindow(sql, since).pipe(sql.withTransaction, storeError("integrity window"))

  // Arrays, not a JSON document: a key's product is a uuid compared as one, and its place is the array's.
  const networks = (keys: ReadonlyArray<VoteKey>) =>
    keys.length === 0
      ? Effect.succeed([])
      : sql<{ network: string | null }>`
          SELECT v.network
          FROM unnest(${keys.map((k) => k.productId)}::uuid[], ${keys.map((k) => k.voter)}::text[]) WITH ORDINALITY AS x(product_id, voter, place)
          LEFT JOIN votes v ON v.product_id = x.product_id AND v.voter = x.voter
          ORDER BY x.place`.pipe(
          Effect.map((rows) => rows.map((row) => row.network)),
          storeError("vote networks")
        )

  const evidence = (products: ReadonlyArray<ProductId>) =>
    products.length === 0
      ? Effect.succeed([])
      : sql<{ up: string | null; down: string | null }>`
          SELECT p.weight_up::text AS up, p.weight_down::text AS down
          FROM unnest(${products}::uuid[]) WITH ORDINALITY AS x(id, place)
          LEFT JOIN products p ON p.id = x.id
          ORDER BY x.place`.pipe(
          Effect.map((rows) =>
            rows.map((row) => (row.up === null || row.down === null ? null : { up: Number(row.up), down: Number(row.down) }))
          ),
          storeError("product evidence")
        )

  const groups = sql<GroupRow>`SELECT id::text, status, found_at, decided_at, evidence FROM vote_groups ORDER BY found_at DESC, id`.pipe(
    Effect.map((rows) => rows.map(toGroup)),
    storeError("vote groups")
  )

  /**
   * "The vote is held", written so that the partial index `votes_held` cannot serve the statement: the
   * planner would take it to find each released vote by its product, and scan a viral product's thousands
   * of held votes again for each of them (docs/benchmarks.md).
   * The primary key finds each vote in one probe. Equal to `v.counting = 'held'` for every row.
   */
  const heldNotByIndex = sql.literal("(v.counting = 'held') IS TRUE")
  const slowSeconds = sql.literal(`${SLOW_SECONDS}.0`)

  /**
   * Locks `ids` in id order, before any of their votes changes. Their recount at the end writes every one
   * of them (`stamp`): a vote's counting changes a product's reads even when its counters stay.
   */
  const lock = (ids: ReadonlyArray<string>) =>
    ids.length === 0 ? Effect.void : sql`SELECT id FROM products WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR UPDATE`.pipe(Effect.asVoid)

  const apply = (verdict: Verdict, at: Date) =>
    Effect.gen(function* () {
      const discounting = verdict.groups
        .filter((g) => g.discount)
        .flatMap((g) => g.votes.map((v) => ({ product_id: v.productId, voter: v.voter, group_id: g.id })))
      // A group for review: its votes are marked as its own and keep counting, until an operator confirms it.
      const marking = verdict.groups
        .filter((g) => !g.discount)
        .flatMap((g) => g.votes.map((v) => ({ product_id: v.productId, voter: v.voter, group_id: g.id })))
      const touchedIds = [...new Set([...discounting.map((v) => v.product_id), ...Array.from(verdict.release, (v) => v.productId)])].sort()
      yield* lock(touchedIds)
      if (verdict.groups.length > 0) {
        yield* sql`
          INSERT INTO vote_groups AS g (id, status, found_at, evidence)
          SELECT x.id, 'suspected', ${at}, x.evidence FROM jsonb_to_recordset(${pg.json(
            verdict.groups.map((g) => ({ id: g.id, evidence: g.evidence }))
          )}) AS x(id uuid, evidence jsonb)
          ON CONFLICT (id) DO UPDATE SET evidence = EXCLUDED.evidence WHERE g.status <> 'cleared'`
      }
      // What was counted and is discounted moves its product's counters (held votes were not counted): the
      // counted and the held are discounted by a statement each, so that each knows what its votes were.
      const discount = (was: "counted" | "held") =>
        sql<{ product_id: string; direction: "up" | "down"; counts: boolean; weight: number }>`
          UPDATE votes v SET counting = 'discounted', group_id = x.group_id
          FROM jsonb_to_recordset(${pg.json(discounting)}) AS x(product_id uuid, voter text, group_id uuid)
          JOIN vote_groups g ON g.id = x.group_id AND g.status <> 'cleared'
          WHERE v.product_id = x.product_id AND v.voter = x.voter
            AND ${was === "counted" ? sql`v.counting = 'counted'` : heldNotByIndex}
            AND NOT EXISTS (SELECT 1 FROM vote_groups c WHERE c.id = v.group_id AND c.status = 'cleared')
          RETURNING v.product_id::text, v.direction, ${was === "counted" ? sql`v.revoked_at IS NULL` : sql`false`} AS counts, v.weight::int`
      const discounted = discounting.length === 0 ? [] : [...(yield* discount("counted")), ...(yield* discount("held"))]
      if (marking.length > 0) {
        yield* sql`
          UPDATE votes v SET group_id = x.group_id
          FROM jsonb_to_recordset(${pg.json(marking)}) AS x(product_id uuid, voter text, group_id uuid)
          JOIN vote_groups g ON g.id = x.group_id AND g.status <> 'cleared'
          WHERE v.product_id = x.product_id AND v.voter = x.voter AND v.group_id IS NULL`
      }
      // Counted now, they teach the product's week rate as if they had counted when cast (voteCounting.ts,
      // ratesAfterRelease, the same arithmetic): a product that starts cold is not held for days. What each
      // product is taught is written by the recount below, in its one write of the product's row.
      const released = new Map<string, { slow: number; votes: number; up: number; down: number; wup: number; wdown: number }>()
      for (let from = 0; from < verdict.release.length; from += RELEASE_BATCH) {
        const batch = Array.from({ length: Math.min(RELEASE_BATCH, verdict.release.length - from) }, (_, k) => {
          const v = verdict.release[from + k]!
          return { product_id: v.productId, voter: v.voter }
        })
        for (const r of yield* sql<{
          product_id: string
          slow: number
          votes: number
          up: number
          down: number
          wup: number
          wdown: number
        }>`
          WITH released AS (
            UPDATE votes v SET counting = 'counted'
            FROM jsonb_to_recordset(${pg.json(batch)}) AS x(product_id uuid, voter text)
            WHERE v.product_id = x.product_id AND v.voter = x.voter AND ${heldNotByIndex}
            RETURNING v.product_id, v.created_at, v.direction, v.revoked_at, v.weight
          )
          SELECT r.product_id::text, sum(exp(-greatest(0, extract(epoch FROM n.at - r.created_at)) / ${slowSeconds}))::float8 AS slow,
                 count(*)::int AS votes,
                 count(*) FILTER (WHERE r.direction = 'up' AND r.revoked_at IS NULL)::int AS up,
                 count(*) FILTER (WHERE r.direction = 'down' AND r.revoked_at IS NULL)::int AS down,
                 coalesce(sum(r.weight) FILTER (WHERE r.direction = 'up' AND r.revoked_at IS NULL), 0)::int AS wup,
                 coalesce(sum(r.weight) FILTER (WHERE r.direction = 'down' AND r.revoked_at IS NULL), 0)::int AS wdown
          FROM released r JOIN products p ON p.id = r.product_id
          CROSS JOIN LATERAL (SELECT ${taughtAt(sql, at)} AS at) n
          GROUP BY r.product_id, n.at`) {
          // A product's votes may span batches: what each batch released of it adds up.
          const sum = released.get(r.product_id) ?? { slow: 0, votes: 0, up: 0, down: 0, wup: 0, wdown: 0 }
          released.set(r.product_id, {
            slow: sum.slow + Number(r.slow),
            votes: sum.votes + r.votes,
            up: sum.up + r.up,
            down: sum.down + r.down,
            wup: sum.wup + r.wup,
            wdown: sum.wdown + r.wdown
          })
        }
      }
      const taught = { at, products: Array.from(released, ([id, r]) => ({ id, slow: r.slow })) }
      // How each product's counted votes moved, and their weights: the released that count, less the counted now discounted.
      const moved = new Map<string, Omit<Moved, "id">>()
      const move = (id: string, by: Omit<Moved, "id">) => {
        const m = moved.get(id) ?? { up: 0, down: 0, wup: 0, wdown: 0 }
        moved.set(id, { up: m.up + by.up, down: m.down + by.down, wup: m.wup + by.wup, wdown: m.wdown + by.wdown })
      }
      for (const [id, r] of released) move(id, r)
      for (const r of discounted) {
        if (!r.counts) continue
        const up = r.direction === "up"
        move(r.product_id, { up: up ? -1 : 0, down: up ? 0 : -1, wup: up ? -r.weight : 0, wdown: up ? 0 : -r.weight })
      }
      const recounted = yield* recount(sql, touchedIds, {
        stamp: true,
        locked: true,
        taught,
        moved: [...moved].map(([id, m]) => ({ id, ...m }))
      })
      const releasedVotes = Array.from(released.values()).reduce((sum, r) => sum + r.votes, 0)
      return { applied: { discounted: discounted.length, released: releasedVotes, recounted }, touched: touchedIds }
    }).pipe(
      sql.withTransaction,
      retryDeadlocks,
      storeError("integrity verdict"),
      Effect.tap(({ touched }) => announcer.announce(touched.map((id) => ({ id: id as ProductId })))),
      Effect.map(({ applied }) => applied)
    )

  const settleStanding = (rule: StandingRule, at: Date) =>
    Effect.gen(function* () {
      const bornBefore = new Date(at.getTime() - rule.minAgeSeconds * 1000)
      const settledBefore = new Date(at.getTime() - rule.settledSeconds * 1000)
      // Members of a group not cleared hold no standing, and gain none. The members are listed once and
      // joined: asking every group's members of each agent would read every group once per agent with standing.
      const members = sql.literal(`
        SELECT DISTINCT m.voter FROM vote_groups g, jsonb_array_elements_text(g.evidence->'members') AS m(voter)
        WHERE ${DISCOUNTING} AND m.voter LIKE 'agent:%'`)
      const lost = yield* sql<{ id: string }>`
        WITH members AS (${members})
        UPDATE agents a SET standing_since = NULL
        FROM members m WHERE m.voter = 'agent:' || a.id::text AND a.standing_since IS NOT NULL
        RETURNING a.id::text`
      const gained = yield* sql<{ id: string }>`
        WITH members AS (${members})
        UPDATE agents a SET standing_since = ${at}
        WHERE a.standing_since IS NULL AND a.revoked_at IS NULL AND a.created_at <= ${bornBefore}
          AND NOT EXISTS (SELECT 1 FROM members m WHERE m.voter = 'agent:' || a.id::text)
          AND (SELECT count(*) FROM votes v
               WHERE v.voter LIKE 'agent:%' AND v.voter = 'agent:' || a.id::text AND v.counting = 'counted'
                 AND v.revoked_at IS NULL AND v.updated_at <= ${settledBefore}) >= ${rule.minVotes}
        RETURNING a.id::text`
      const keys = (rows: ReadonlyArray<{ id: string }>) => rows.map((r) => agentLedgerKey(r.id as AgentId)).sort()
      return { gained: keys(gained), lost: keys(lost) } satisfies Settled
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
      yield* lock(touched)
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
      const recounted = yield* recount(sql, touched, { stamp: true, locked: true })
      return { decision: { group: toGroup(decided!), changed: true, votes: moved.length, recounted } satisfies GroupDecision, touched }
    }).pipe(
      sql.withTransaction,
      retryDeadlocks,
      storeError("group decision"),
      Effect.tap(({ touched }) => announcer.announce(touched.map((p) => ({ id: p as ProductId })))),
      Effect.map(({ decision }) => decision)
    )

  return IntegrityLedger.of({ window, networks, evidence, groups, apply, settleStanding, decide })
})

export const layer = Layer.effect(IntegrityLedger, make)
