/**
 * Search at a million products (issue 23; docs/search.md). Ranking a search is one `ts_rank` per
 * matching product, one read of its vector each: seconds for a word most of a million products have. For a
 * query with a common lexeme (one more than MIN_DF_SHARE of the products have), this ranks a bounded
 * set of candidates instead: each common lexeme's best products by its own score (search_lists,
 * migration 0012, per category, and every category's best under the key ''), every product with one
 * of the query's rare lexemes (the GIN index, few by definition), and, for the start of a word whose
 * name matches fill the page, its best name matches (search_names, migration 0013) in place of its
 * rare completions (for a start with very many, as found when the lists were built: search_starts,
 * migration 0014). The page is then ranked exactly as before, with `ts_rank` over the whole query
 * and live trust, among those candidates. What it may miss (docs/search.md): a product that has
 * several of the query's common words but is among the best for none of them, one beyond a start's
 * best name matches, and a product whose text changed since the lists were built (until the next build).
 *
 * The lists are built in the background (`build`, started by a search that finds them missing, stale
 * or of an earlier form) on catalogs of LISTS_FROM products or more, the catalog analyzed first, then
 * category by category, each in a transaction of its own; a process claims the build in
 * search_lists_state, so only one builds at a time.
 * Smaller catalogs never have lists: their searches rank every match, as they always have.
 */
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { PREFIX_MIN_LENGTH } from "@productdir/domain"

/** Catalogs smaller than this rank every match: fast enough, and exact. */
export const LISTS_FROM = 20_000
/** A lexeme is common, and listed, when more than this share of the products have it (at least 50 of them). */
const MIN_DF_SHARE = 0.0005
const MIN_DF_FLOOR = 50
/** How many best products a list keeps per lexeme and category. */
export const LIST_DEPTH = 200
/** Rare lexemes of a query that match more products than this together: the lists are not used. */
const RARE_MAX = 50_000
/** Completions of a typed word start beyond this: the lists are not used. */
const COMPLETIONS_MAX = 20_000
/**
 * A start of a word whose name matches are more than this share of the products (and more than LIST_DEPTH) is
 * searched when the lists are built (search_starts), not by each search.
 */
const STARTS_MIN_SHARE = 0.001
/** Lists older than this are rebuilt when the catalog has changed since. */
const REBUILD_AFTER_MS = 10 * 60_000
/**
 * The form of the lists this code builds and reads (search_lists_state.built_format, migration 0013): 2, the
 * categories' lists, every category's best (key ''), and search_names.
 */
const FORMAT = 2
/** A build claimed this long ago and not finished was abandoned (its process stopped). */
const CLAIM_EXPIRES = "1 hour"

/** What a search looks for, as the candidates' statement needs it. */
export interface Sought {
  /** Each query word as searched by English stems: the word and the typos' fixes it stands for, space-separated. */
  readonly words: ReadonlyArray<string>
  /** Beside each of `words`: the word, where it is searched as the start of a word too; else "". */
  readonly typed: ReadonlyArray<string>
}

/**
 * The products worth ranking for a first page of relevance-sorted results, or undefined when every
 * match must be ranked (no lists yet, no common lexeme in the query, too many rare matches). A search
 * that finds the lists missing or stale on a large catalog starts a build on `primary`.
 */
export const searchCandidates = (
  db: SqlClient.SqlClient,
  primary: SqlClient.SqlClient,
  sought: Sought,
  category: string | undefined,
  limit: number
) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const [row] = yield* db<{
      usable: boolean
      candidates: ReadonlyArray<string> | null
      built_at: Date | null
      built_format: number
      with_starts: boolean
      changed: boolean
      products: number
    }>`
      SELECT * FROM productdir_search_candidates(${FORMAT}, ${category ?? null}, ${sought.typed}::text[], ${sought.words}::text[],
        ${limit}, ${sought.typed.some((word) => word !== "") ? LIST_DEPTH : 2 * LIST_DEPTH}, ${LIST_DEPTH}, ${COMPLETIONS_MAX}, ${RARE_MAX}, ${LISTS_FROM})`
    const stale =
      row !== undefined &&
      row.products >= LISTS_FROM &&
      (row.built_at === null ||
        row.built_format !== FORMAT ||
        // Lists a process of an earlier release built, without the starts: rebuilt once, searches reading them meanwhile.
        !row.with_starts ||
        (row.changed && now - row.built_at.getTime() > REBUILD_AFTER_MS))
    if (stale) yield* Effect.forkDetach(build(primary).pipe(Effect.ignore))
    return row?.usable === true ? (row.candidates ?? []) : undefined
  })

/**
 * Builds the lists if no process is building them: the lexemes' document counts, then each
 * category's lists in a transaction of its own, then the state. The number of lists, or none when
 * another process holds the build or the lists are fresh.
 */
export const build = (sql: SqlClient.SqlClient): Effect.Effect<number | undefined, SqlError> =>
  Effect.gen(function* () {
    const [claim] = yield* sql<{ products: number }>`
      UPDATE search_lists_state SET building_since = now()
      WHERE (building_since IS NULL OR building_since < now() - ${CLAIM_EXPIRES}::interval)
        AND (built_at IS NULL OR built_format <> ${FORMAT} OR starts_xid IS DISTINCT FROM built_xid
          OR built_at < now() - ${`${REBUILD_AFTER_MS / 1000} seconds`}::interval)
      RETURNING (SELECT count(*) FROM product_search)::float8 AS products`
    if (claim === undefined) return undefined
    const minDf = Math.max(MIN_DF_FLOOR, Math.floor(claim.products * MIN_DF_SHARE))
    return yield* Effect.gen(function* () {
      // The catalog's statistics first: an embedded store has no autovacuum, and a catalog imported into it was
      // never analyzed (without statistics, the planner's guesses make a brand word's search many times slower).
      yield* sql`ANALYZE products`
      yield* sql`ANALYZE product_search`
      yield* sql`ANALYZE search_words`
      // The transaction the lists start from: a product changed after it may be missing from them.
      const [start] = yield* sql<{ xid: string }>`SELECT pg_current_xact_id()::text AS xid`
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`DELETE FROM search_lexemes`
          yield* sql`INSERT INTO search_lexemes (lexeme, df) SELECT word, ndoc FROM ts_stat('SELECT search FROM product_search')`
        })
      )
      const categories = yield* sql<{ key: string }>`SELECT DISTINCT category_key AS key FROM product_search ORDER BY 1`
      let lists = 0
      for (const { key } of categories) {
        const [built] = yield* sql<{ n: number }>`SELECT productdir_build_search_lists(${key}, ${minDf}, ${LIST_DEPTH}) AS n`
        lists += built?.n ?? 0
      }
      yield* sql`
        DELETE FROM search_lists l
        WHERE l.category_key <> '' AND NOT EXISTS (SELECT 1 FROM product_search s WHERE s.category_key = l.category_key)`
      // Every category's best for each lexeme, from the categories' lists (key ''): a search without a category reads
      // one list a lexeme, not a dozen (each a few KB of arrays to unpack).
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT set_config('work_mem', '128MB', true)`
          yield* sql`DELETE FROM search_lists WHERE category_key = ''`
          yield* sql`
            INSERT INTO search_lists (lexeme, category_key, product_ids, scores, trusts)
            SELECT lexeme, '', array_agg(id ORDER BY rn), array_agg(score ORDER BY rn), array_agg(trust ORDER BY rn)
            FROM (
              SELECT sl.lexeme, e.id, e.score, e.trust,
                     row_number() OVER (PARTITION BY sl.lexeme ORDER BY e.score DESC, e.trust DESC, e.id) AS rn
              FROM search_lists sl, unnest(sl.product_ids, sl.scores, sl.trusts) AS e(id, score, trust)
              WHERE sl.category_key <> ''
            ) AS ranked
            WHERE rn <= ${LIST_DEPTH}
            GROUP BY lexeme`
        })
      )
      yield* sql`
        DELETE FROM search_names l WHERE NOT EXISTS (SELECT 1 FROM product_search s WHERE s.category_key = l.category_key)`
      // The starts with many name matches, searched once here rather than by every search that types one.
      const minNamed = Math.max(LIST_DEPTH, Math.floor(claim.products * STARTS_MIN_SHARE))
      yield* sql`SELECT productdir_build_search_starts(${PREFIX_MIN_LENGTH}, ${minNamed}, ${LIST_DEPTH}, ${minDf}, ${COMPLETIONS_MAX})`
      // Statistics for the planner at once (the search's statement joins these tables); the lists' and names'
      // deleted rows made reusable (each build rewrites them: the next one fills the same pages, not new ones),
      // and search_names' pages marked all-visible, so that a start's range is read from its index alone.
      yield* sql`ANALYZE search_lexemes`
      yield* sql`VACUUM (ANALYZE) search_lists`
      yield* sql`VACUUM (ANALYZE) search_names`
      yield* sql`VACUUM (ANALYZE) search_starts`
      yield* sql`
        UPDATE search_lists_state SET built_xid = ${start!.xid}::xid8, starts_xid = ${start!.xid}::xid8, built_at = now(), min_df = ${minDf},
          depth = ${LIST_DEPTH}, products = ${claim.products}, built_format = ${FORMAT}, building_since = NULL`
      yield* Effect.logInfo(`search lists built: ${lists} lists, lexemes in more than ${minDf} products`)
      return lists
    }).pipe(Effect.onError(() => sql`UPDATE search_lists_state SET building_since = NULL`.pipe(Effect.ignore)))
  })
