/**
 * The locked recount: a product's counters set to its seed plus its counted
 * votes (`counted_votes`, the rule of packages/domain/src/VoteLedger.ts). Used
 * where a count must not race a vote: a repair whose product moved since its
 * snapshot, and an agent's revocation or restore. Runs inside the caller's
 * transaction.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Recount } from "@productdir/domain"

type Count = bigint | number | string

/**
 * `stamp`: write every listed product, its counters moved or not (the write stamps its reads changed, for
 * a caller that changed how its votes count without always moving its counters). One write a product
 * instead of a stamp and then a recount: the integrity pass touches tens of thousands of products, and
 * each write of one is a new version of a wide row with an entry in each of its indexes.
 */
export const recount = (sql: SqlClient.SqlClient, ids: ReadonlyArray<string>, options?: { readonly stamp?: boolean }) =>
  Effect.gen(function* () {
    if (ids.length === 0) return []
    const list = [...ids]
    // Lock first, in id order (as every writer does); the recount below is a new
    // statement, so its snapshot sees every vote committed before the locks were granted.
    yield* sql`SELECT id FROM products WHERE id = ANY(${list}::uuid[]) ORDER BY id FOR UPDATE`
    const rows = yield* sql<{ id: string; before_up: Count; before_down: Count; up: Count; down: Count }>`
      WITH v AS (
        SELECT product_id, count(*) FILTER (WHERE direction = 'up') AS up, count(*) FILTER (WHERE direction = 'down') AS down
        FROM counted_votes WHERE product_id = ANY(${list}::uuid[]) GROUP BY product_id
      ), e AS (
        SELECT p.id, p.trust_up AS before_up, p.trust_down AS before_down,
               p.seed_up + coalesce(v.up, 0) AS up, p.seed_down + coalesce(v.down, 0) AS down
        FROM products p LEFT JOIN v ON v.product_id = p.id
        WHERE p.id = ANY(${list}::uuid[])
      )
      UPDATE products p SET trust_up = e.up, trust_down = e.down
      FROM e WHERE p.id = e.id ${options?.stamp === true ? sql`` : sql`AND (p.trust_up, p.trust_down) IS DISTINCT FROM (e.up, e.down)`}
      RETURNING p.id, e.before_up, e.before_down, e.up, e.down`
    const moved = rows.filter((r) => Number(r.before_up) !== Number(r.up) || Number(r.before_down) !== Number(r.down))
    return moved.map(
      (r): Recount => ({
        id: r.id,
        before: { up: Number(r.before_up), down: Number(r.before_down) },
        after: { up: Number(r.up), down: Number(r.down) }
      })
    )
  })
