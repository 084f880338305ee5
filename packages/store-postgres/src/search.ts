/**
 * Search on PostgreSQL (packages/domain/src/record/search.ts says what a word
 * matches): a query becomes one tsquery over `product_search.search`
 * (productdir_search_vector, routines/sql/search.sql), so the GIN index answers it, and
 * relevance is `ts_rank` over the same tsquery. Typos are corrected against
 * `search_words`, the catalog's vocabulary: the words one edit away, found by
 * B-tree probes (the nearest by trigrams when none is and two typos may be),
 * kept when the domain calls them one typo away.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { ENGLISH_STOP_WORDS, isTypoOf, mayBeTypo, PREFIX_MIN_LENGTH, queryWords, TYPO_MAX_WORDS } from "@productdir/domain"
import type { Sought } from "./searchLists.ts"

/** ts_rank's weights for {D, C, B, A}: body (C) 0.2, category (B) 0.4, name (A) 1.0. */
export const RANK_WEIGHTS = "{0.1, 0.2, 0.4, 1.0}"

/** Only whole words of letters and digits go into a tsquery (its syntax never sees anything else). */
const PLAIN = /^[\p{L}\p{N}]+$/u

/** A quoted tsquery operand. */
const operand = (word: string, prefix: boolean) => `'${word}'${prefix ? ":*" : ""}`

/** The two halves of a query's tsquery: English stems, and the starts of words being typed. */
export interface SearchQuery {
  readonly english: string
  readonly prefixes: string | undefined
  /** The same words, for the candidates of a large catalog (searchLists.ts). */
  readonly sought: Sought
  /** Each query word's own halves: a product has the word when it matches either (coverage). */
  readonly words: ReadonlyArray<{ readonly english: string; readonly prefix: string | undefined }>
}

/** How many vocabulary words a typo may stand for are searched, the most alike first. */
const TYPO_CANDIDATES = 10

/** What the vocabulary says of a query word. */
interface Known {
  /** The catalog has this very word. */
  readonly whole: boolean
  /** The words it is a typo of, when no word of the catalog has it or starts with it. */
  readonly fixes: ReadonlyArray<string>
}

const ALPHABET = [..."abcdefghijklmnopqrstuvwxyz0123456789"]

/**
 * Every string one edit from `word` (a letter changed, dropped, added, or two neighbours swapped):
 * the words it may be a typo of, looked up as keys of the vocabulary's B-tree (a few hundred probes, far
 * cheaper than a nearest-neighbour scan over the trigrams of a vocabulary of a million words).
 * Letters come from a-z, 0-9 and the word's own.
 */
export const oneEditAway = (word: string): ReadonlyArray<string> => {
  const chars = [...word]
  const letters = [...new Set([...ALPHABET, ...chars])]
  const out = new Set<string>()
  for (let i = 0; i <= chars.length; i++) {
    const before = chars.slice(0, i).join("")
    const after = chars.slice(i).join("")
    for (const c of letters) out.add(before + c + after)
    if (i < chars.length) {
      const rest = chars.slice(i + 1).join("")
      out.add(before + rest)
      for (const c of letters) if (c !== chars[i]) out.add(before + c + rest)
      if (i + 1 < chars.length) out.add(before + chars[i + 1] + chars[i] + chars.slice(i + 2).join(""))
    }
  }
  out.delete(word)
  return [...out]
}

/**
 * Looks each word up in the vocabulary: whether it is a word of the catalog or the start of one (B-tree
 * ranges, one statement for every word), then, for the words that are neither, the words one edit away
 * (B-tree probes). Only a word with none of those that may hold two typos (eight letters or more) or
 * letters outside a-z and 0-9 is matched by the nearest words by trigrams (GiST). The edits are made and
 * sent only for the words that need them: a few hundred strings a word, which a search of known words (most
 * of them) would otherwise make, send and parse for nothing.
 */
const lookUp = (sql: SqlClient.SqlClient, words: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const found = yield* sql<{ word: string; whole: boolean; started: boolean }>`
      SELECT t.word,
        EXISTS (SELECT 1 FROM search_words s WHERE s.word = t.word) AS whole,
        EXISTS (SELECT 1 FROM search_words s WHERE s.word >= t.word AND s.word < t.word || chr(1114111)) AS started
      FROM unnest(${words}::text[]) AS t(word)`
    const unknown = found
      .filter((r) => !r.started && mayBeTypo(r.word))
      .slice(0, TYPO_MAX_WORDS)
      .map((r) => r.word)
    const fixed =
      unknown.length === 0
        ? []
        : yield* sql<{ word: string; candidates: ReadonlyArray<string> | null }>`
            SELECT t.word, coalesce(
              nullif(ARRAY(
                SELECT s.word FROM unnest(string_to_array(t.edits, ' ')) AS x(edit)
                -- A range, which only the B-tree serves: the trigram GiST index also answers =, 20 ms a probe.
                JOIN search_words s ON s.word >= x.edit COLLATE "C" AND s.word <= x.edit COLLATE "C"
                ORDER BY similarity(s.word, t.word) DESC, s.word LIMIT ${TYPO_CANDIDATES}
              ), '{}'),
              CASE WHEN length(t.word) >= 8 OR t.word !~ '^[a-z0-9]*$' THEN ARRAY(
                SELECT s.word FROM search_words s ORDER BY s.word <-> t.word LIMIT ${TYPO_CANDIDATES}
              ) END
            ) AS candidates
            FROM unnest(${unknown}::text[], ${unknown.map((w) => oneEditAway(w).join(" "))}::text[]) AS t(word, edits)`
    const candidates = new Map(fixed.map((r) => [r.word, r.candidates ?? []]))
    return new Map(
      found.map((r): [string, Known] => [
        r.word,
        { whole: r.whole, fixes: (candidates.get(r.word) ?? []).filter((c) => PLAIN.test(c) && isTypoOf(r.word, c)) }
      ])
    )
  })

/** The tsquery texts of `q`, or undefined when it has no words to search for. */
export const searchQuery = (sql: SqlClient.SqlClient, q: string) =>
  Effect.gen(function* () {
    const words = queryWords(q).filter((w) => PLAIN.test(w))
    if (words.length === 0) return undefined
    const known = yield* lookUp(sql, words)
    // Word by word: what each stands for (a product has the word when it has any of it), for the rank's count of words.
    const each = words.map((word) => ({
      word,
      fixes: (known.get(word)?.fixes ?? []).filter((f) => !ENGLISH_STOP_WORDS.has(f)),
      // A word the catalog has is searched by its stem alone; any other also as the start of the word being typed.
      typed: word.length >= PREFIX_MIN_LENGTH && known.get(word)?.whole !== true
    }))
    const typed = each.filter((w) => w.typed).map((w) => w.word)
    const english = [...new Set([...words, ...each.flatMap((w) => w.fixes)])]
    return {
      english: english.map((w) => operand(w, false)).join(" | "),
      prefixes: typed.length > 0 ? typed.map((w) => operand(w, true)).join(" | ") : undefined,
      sought: { words: each.map((w) => [w.word, ...w.fixes].join(" ")), typed: each.map((w) => (w.typed ? w.word : "")) },
      words: each.map((w) => ({
        english: [w.word, ...w.fixes].map((x) => operand(x, false)).join(" | "),
        prefix: w.typed ? operand(w.word, true) : undefined
      }))
    } satisfies SearchQuery
  })

/**
 * The tsquery of a search, as SQL: a scalar subquery, so that it is parsed once per statement (an
 * InitPlan) rather than once per row where ts_rank and the row-wise match use it.
 */
export const tsquery = (sql: SqlClient.SqlClient, query: Pick<SearchQuery, "english" | "prefixes">) =>
  query.prefixes === undefined
    ? sql`(SELECT to_tsquery('english', productdir_unaccent(${query.english})))`
    : sql`(SELECT to_tsquery('english', productdir_unaccent(${query.english})) || to_tsquery('simple', productdir_unaccent(${query.prefixes})))`

/**
 * A matching product's relevance (the domain's rule, packages/domain/src/record/search.ts): how many of the query's
 * words it has, then `ts_rank` of the whole query (below 1) among products with as many. A query of one word
 * ranks by `ts_rank` alone: every match has its word. Each word's tsquery is parsed once a statement too.
 */
export const relevance = (sql: SqlClient.SqlClient, query: SearchQuery) => {
  const rank = sql`ts_rank(${RANK_WEIGHTS}::float4[], product_search.search, ${tsquery(sql, query)})::float8`
  if (query.words.length < 2) return sql`(1 + ${rank})`
  const has = query.words.map(
    (w) => sql`ts_match_vq(product_search.search, ${tsquery(sql, { english: w.english, prefixes: w.prefix })})::int`
  )
  return sql`(${sql.join(" + ", false)(has)} + ${rank})`
}
