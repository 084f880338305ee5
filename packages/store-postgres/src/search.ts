/**
 * Search on PostgreSQL (packages/domain/src/search.ts says what a word
 * matches): a query becomes one tsquery over `products.search`
 * (productdir_search_vector, migration 5), so the GIN index answers it, and
 * relevance is `ts_rank` over the same tsquery. Typos are corrected against
 * `search_words`, the catalog's vocabulary: the nearest words by trigrams
 * (GiST), kept when the domain calls them one typo away.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { ENGLISH_STOP_WORDS, isTypoOf, PREFIX_MIN_LENGTH, queryWords, TYPO_MIN_LENGTH } from "@productdir/domain"

/** ts_rank's weights for {D, C, B, A}: body (C) 0.2, category (B) 0.4, name (A) 1.0. */
export const RANK_WEIGHTS = "{0.1, 0.2, 0.4, 1.0}"

/** Only whole words of letters and digits go into a tsquery (its syntax never sees anything else). */
const PLAIN = /^[\p{L}\p{N}]+$/u

/** A quoted tsquery operand. */
const operand = (word: string, prefix: boolean) => `'${word}'${prefix ? ":*" : ""}`

/** The two halves of a query's tsquery: English stems, and plain words and prefixes. */
export interface SearchQuery {
  readonly english: string | undefined
  readonly simple: string
}

/** How many vocabulary words nearest to a word are checked for a typo. */
const TYPO_CANDIDATES = 10

/**
 * The words of the vocabulary each unknown word (no vocabulary word has or
 * starts with it) is a typo of.
 */
const corrections = (sql: SqlClient.SqlClient, words: ReadonlyArray<string>) => {
  const unknown = words.filter((w) => w.length >= TYPO_MIN_LENGTH)
  if (unknown.length === 0) return Effect.succeed([] as ReadonlyArray<string>)
  return Effect.map(
    sql<{ word: string; candidate: string }>`
      SELECT t.word, c.word AS candidate
      FROM unnest(${unknown}::text[]) AS t(word)
      CROSS JOIN LATERAL (
        SELECT s.word FROM search_words s ORDER BY s.word <-> t.word LIMIT ${TYPO_CANDIDATES}
      ) AS c
      WHERE NOT EXISTS (
        SELECT 1 FROM search_words s WHERE s.word >= t.word AND s.word < t.word || chr(1114111)
      )`,
    (rows) => rows.filter((r) => PLAIN.test(r.candidate) && isTypoOf(r.word, r.candidate)).map((r) => r.candidate)
  )
}

/** The tsquery texts of `q`, or undefined when it has no words to search for. */
export const searchQuery = (sql: SqlClient.SqlClient, q: string) =>
  Effect.gen(function* () {
    const words = queryWords(q).filter((w) => PLAIN.test(w))
    if (words.length === 0) return undefined
    const fixes = yield* corrections(sql, words)
    const stemmed = [...words, ...fixes].filter((w) => !ENGLISH_STOP_WORDS.has(w))
    const simple = [...words.map((w) => operand(w, w.length >= PREFIX_MIN_LENGTH)), ...fixes.map((w) => operand(w, false))]
    return {
      english: stemmed.length > 0 ? stemmed.map((w) => operand(w, false)).join(" | ") : undefined,
      simple: simple.join(" | ")
    } satisfies SearchQuery
  })

/** The tsquery of a search, as SQL. */
export const tsquery = (sql: SqlClient.SqlClient, query: SearchQuery) =>
  query.english === undefined
    ? sql`to_tsquery('simple', productdir_unaccent(${query.simple}))`
    : sql`(to_tsquery('english', productdir_unaccent(${query.english})) || to_tsquery('simple', productdir_unaccent(${query.simple})))`
