/**
 * The locked recount: a product's counters set to its seed plus its counted
 * votes (`counted_votes`, the rule of packages/domain/src/ports/VoteLedger.ts), and its weighted evidence to its seed at a
 * whole vote each plus their weights (packages/domain/src/trust/judgement.ts). Used
 * where a count must not race a vote: a repair whose product moved since its
 * snapshot, an agent's revocation or restore, and the integrity pass's verdicts.
 * Runs inside the caller's transaction.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { FAST_SECONDS, type Recount, SEED_WEIGHT, SLOW_SECONDS } from "@productdir/domain"

type Count = bigint | number | string

/**
 * Votes counted late (held, then released) teach their product's rates as if they had counted when cast
 * (packages/domain/src/trust/voteCounting.ts, `ratesAfterRelease`): the rates decayed to the verdict's time (`at`, or
 * the product's own rate time when that is later), then `slow` added to the week's, the sum over each
 * product's released votes of their weight at that time.
 */
export interface Taught {
  readonly at: Date
  readonly products: ReadonlyArray<{ readonly id: string; readonly slow: number }>
}

export interface RecountOptions {
  /**
   * Write every listed product, its counters moved or not (the write stamps its reads changed, for a caller
   * that changed how its votes count without always moving its counters). One write a product instead of a
   * stamp and then a recount: the integrity pass touches tens of thousands of products, and each write of one
   * is a new version of a wide row with an entry in each of its indexes.
   */
  readonly stamp?: boolean
  /** The products' rows are locked by the caller already, in id order. */
  readonly locked?: boolean
  /** Rates to teach in the same write (listed products only): a second write of the row would cost as much again. */
  readonly taught?: Taught
  /**
   * How far each listed product's counted votes moved, by the caller's own changes to them under the products'
   * locks (a product not listed here did not move): the counters move by as much, and the ledger is not counted.
   * Counting a verdict's products' votes anew would read every vote of the ledger (a parallel scan of `votes`,
   * where an index finds a viral product's votes no faster); while the rows are locked no other writer can
   * change which of their votes count, so the counters after are the count, as a recount finds them, whenever
   * they were the count before (the reconciliation job's recount keeps them so).
   */
  readonly moved?: ReadonlyArray<Moved>
}

/** A product's counted votes moved by `up` and `down` (negative: fewer), and their weights by `wup` and `wdown`. */
export interface Moved {
  readonly id: string
  readonly up: number
  readonly down: number
  readonly wup: number
  readonly wdown: number
}

const fastSeconds = `${FAST_SECONDS}.0`
const slowSeconds = `${SLOW_SECONDS}.0`

/**
 * The time a verdict at `at` teaches product `p`'s rates at: `at`, or the product's own rate time when that
 * is later. The release sums its votes' weights at this time and the recount decays the rates to it, both
 * under the product's lock, so both statements read the same `p.rate_at`.
 */
export const taughtAt = (sql: SqlClient.SqlClient, at: Date | null) =>
  sql`greatest(${at}::timestamptz, coalesce(p.rate_at, ${at}::timestamptz))`

export const recount = (sql: SqlClient.SqlClient, ids: ReadonlyArray<string>, options: RecountOptions = {}) =>
  Effect.gen(function* () {
    if (ids.length === 0) return []
    const list = [...ids]
    const taught = options.taught?.products ?? []
    // Lock first, in id order (as every writer does); the recount below is a new
    // statement, so its snapshot sees every vote committed before the locks were granted.
    if (options.locked !== true) yield* sql`SELECT id FROM products WHERE id = ANY(${list}::uuid[]) ORDER BY id FOR UPDATE`
    const moved = options.moved
    const rows = yield* sql<{ id: string; before_up: Count; before_down: Count; up: Count; down: Count }>`
      WITH v AS (${
        moved === undefined
          ? sql`
        SELECT product_id, count(*) FILTER (WHERE direction = 'up') AS up, count(*) FILTER (WHERE direction = 'down') AS down,
          coalesce(sum(weight) FILTER (WHERE direction = 'up'), 0) AS wup, coalesce(sum(weight) FILTER (WHERE direction = 'down'), 0) AS wdown
        FROM counted_votes WHERE product_id = ANY(${list}::uuid[]) GROUP BY product_id`
          : sql`
        SELECT * FROM unnest(${moved.map((m) => m.id)}::uuid[], ${moved.map((m) => m.up)}::int[], ${moved.map((m) => m.down)}::int[],
          ${moved.map((m) => m.wup)}::bigint[], ${moved.map((m) => m.wdown)}::bigint[])
          AS v(product_id, up, down, wup, wdown)`
      }
      ), t AS (
        -- The sums as texts: an array parameter's numbers must all infer one type, and a sum may happen to be whole.
        SELECT * FROM unnest(${taught.map((x) => x.id)}::uuid[], ${taught.map((x) => String(x.slow))}::float8[]) AS t(id, slow)
      ), e AS (
        SELECT p.id, p.trust_up AS before_up, p.trust_down AS before_down,
               ${moved === undefined ? sql`p.seed_up` : sql`p.trust_up`} + coalesce(v.up, 0) AS up,
               ${moved === undefined ? sql`p.seed_down` : sql`p.trust_down`} + coalesce(v.down, 0) AS down,
               ${moved === undefined ? sql`p.seed_up * ${SEED_WEIGHT}` : sql`p.weight_up`} + coalesce(v.wup, 0) AS wup,
               ${moved === undefined ? sql`p.seed_down * ${SEED_WEIGHT}` : sql`p.weight_down`} + coalesce(v.wdown, 0) AS wdown,
               CASE WHEN t.id IS NOT NULL THEN ${taughtAt(sql, options.taught?.at ?? null)} END AS at, t.slow
        FROM products p LEFT JOIN v ON v.product_id = p.id LEFT JOIN t ON t.id = p.id
        WHERE p.id = ANY(${list}::uuid[])
      )
      UPDATE products p SET trust_up = e.up, trust_down = e.down, weight_up = e.wup, weight_down = e.wdown,
        -- Decayed from the rate time to the one taught at (never earlier: taughtAt is the later of the two).
        rate_fast = CASE WHEN e.at IS NULL THEN p.rate_fast
          ELSE p.rate_fast * exp(-extract(epoch FROM e.at - coalesce(p.rate_at, e.at)) / ${sql.literal(fastSeconds)}) END,
        rate_slow = CASE WHEN e.at IS NULL THEN p.rate_slow
          ELSE p.rate_slow * exp(-extract(epoch FROM e.at - coalesce(p.rate_at, e.at)) / ${sql.literal(slowSeconds)}) + e.slow END,
        rate_at = coalesce(e.at, p.rate_at)
      FROM e WHERE p.id = e.id ${options.stamp === true ? sql`` : sql`AND ((p.trust_up, p.trust_down, p.weight_up, p.weight_down) IS DISTINCT FROM (e.up, e.down, e.wup, e.wdown) OR e.at IS NOT NULL)`}
      RETURNING p.id, e.before_up, e.before_down, e.up, e.down`
    return rows
      .filter((r) => Number(r.before_up) !== Number(r.up) || Number(r.before_down) !== Number(r.down))
      .map(
        (r): Recount => ({
          id: r.id,
          before: { up: Number(r.before_up), down: Number(r.before_down) },
          after: { up: Number(r.up), down: Number(r.down) }
        })
      )
  })
