/**
 * What a changed routine computed into stored columns, computed again: every product's trust score
 * (a generated column, recomputed when its row is written), every product's search vector and the
 * words it adds to the vocabulary. In batches of products in id order, each its own short transaction,
 * so votes and reads go on while a catalog of a million products is rewritten; rows whose stored value
 * is already right are left alone.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { Rewrite } from "./Routine.ts"

export const REWRITE_BATCH = 2_000

/** One batch after product `after`: the last product id it looked at (none: the rewrite is done) and how many rows it wrote. */
type Batch = (
  sql: SqlClient.SqlClient,
  after: string
) => Effect.Effect<{ readonly last: string | null; readonly written: number }, SqlError>

const firstRow = <A>(rows: ReadonlyArray<A>): A => rows[0]!

export const batches: Record<Rewrite, Batch> = {
  "trust scores": (sql, after) =>
    Effect.map(
      sql<{ last: string | null; written: number }>`
        WITH b AS (SELECT id FROM products WHERE id > ${after}::uuid ORDER BY id LIMIT ${REWRITE_BATCH}),
        w AS (
          UPDATE products p SET trust_up = p.trust_up FROM b
          WHERE p.id = b.id AND p.trust_score IS DISTINCT FROM productdir_judged_score(p.weight_up, p.weight_down)
          RETURNING 1)
        SELECT (SELECT id::text FROM b ORDER BY id DESC LIMIT 1) AS last, (SELECT count(*) FROM w)::int AS written`,
      firstRow
    ),
  "search vectors": (sql, after) =>
    Effect.map(
      sql<{ last: string | null; written: number }>`
        WITH b AS (
          SELECT id, productdir_search_vector(name, category, productdir_search_body(content)) AS search,
            tsvector_to_array(to_tsvector('simple', productdir_unaccent(concat_ws(' ', name, category, productdir_search_body(content))))) AS words
          FROM products WHERE id > ${after}::uuid ORDER BY id LIMIT ${REWRITE_BATCH}),
        w AS (
          UPDATE product_search s SET search = b.search FROM b
          WHERE s.product_id = b.id AND s.search IS DISTINCT FROM b.search
          RETURNING 1),
        v AS (INSERT INTO search_words (word) SELECT DISTINCT w FROM b, unnest(b.words) AS w ORDER BY w ON CONFLICT DO NOTHING RETURNING 1)
        SELECT (SELECT id::text FROM b ORDER BY id DESC LIMIT 1) AS last, (SELECT count(*) FROM w)::int AS written`,
      firstRow
    )
}
