/**
 * Search lists (src/searchLists.ts): once built, a first page by relevance ranks the candidates they
 * give instead of every match, and it is the same page as ranking every match: for one common word,
 * two, a common word within a category, the start of a word, a common word beside a rare one, the start
 * of 300 rare words in names (searched by its best name matches: search_names, kept with the lists in
 * search_starts), two words of one stem beside a word in names. On a catalog of 400
 * products where three words are in more than 50 of them (the lists' floor). On PGlite, and on the
 * server when DATABASE_URL is set.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { CatalogStore, fromImportRecord, type ProductId } from "@productdir/domain"
import { generateRecord } from "@productdir/fixtures/generator"
import { layerPglite, layerPostgres } from "../src/index.ts"
import { build, searchCandidates } from "../src/searchLists.ts"
import { RELEVANCE_WINDOW } from "../src/SqlCatalogStore.ts"
import { freshDatabaseUrl, testStores } from "../src/testing.ts"

const COMMON = ["quillon", "marrowby", "tessaract"]
const PRODUCTS = 400

/** Product i: common words in some of them, in the name of a few, more than once in others. */
const inputs = Array.from({ length: PRODUCTS }, (_, i) => {
  const record = generateRecord(23, i)
  const words = COMMON.filter((_, k) => i % (k + 2) === 0)
  // Three in four have a word of their own in the name that starts with "zeph": 300 rare words of one start.
  const named = i % 17 === 0 ? `${record.name} ${COMMON[i % 3]}` : record.name
  // About one in seven has "Vellichor" in its name (53: a listed word, of a short list), which scores more than
  // "marrowby" in a summary; 19 have both (none with a common word in its name: the page of 20 is not all theirs).
  const titled = i % 7 === 3 && i % 17 !== 0 ? `${named} Vellichor` : named
  const name = i % 4 === 0 ? titled : `${titled} Zephyr${i}`
  const summary = `${record.ai_summary} ${words.join(" ")} ${i % 5 === 0 ? words.join(" ") : ""}`
  return fromImportRecord({ ...record, name, ai_summary: summary.trim() }, record.id as ProductId).input
})

const QUERIES: ReadonlyArray<{ q: string; category?: string }> = [
  { q: "quillon" },
  { q: "marrowby tessaract" },
  { q: "quillon", category: inputs[0]!.content.category },
  { q: "tessa" },
  { q: `quillon ${inputs[34]!.content.name.split(" ")[0]}` },
  { q: "zeph" },
  { q: "zeph", category: inputs[1]!.content.category },
  { q: "zeph quillon" },
  // Two words of one stem (the second a typo of the first): a product with "marrowby" has two of the three words,
  // and ranks above one with "Vellichor" in its name alone, though the lists' score for that name is higher.
  { q: "marrowby marrowbys vellichor" }
]

const behaviours = (name: string, stores: Layer.Layer<CatalogStore | SqlClient.SqlClient, unknown>) =>
  describe(`search lists (${name})`, () => {
    layer(stores, { timeout: "120 seconds" })((it) => {
      it.effect("a first page from the lists' candidates is the page of ranking every match", () =>
        Effect.gen(function* () {
          const catalog = yield* CatalogStore
          const sql = yield* SqlClient.SqlClient
          yield* catalog.upsert(inputs)
          const page = (q: string, category?: string) =>
            Effect.map(catalog.list({ q, category, sort: "relevance", limit: 20 }), (p) => p.items.map((item) => item.id))
          const sought = (q: string) => ({ words: q.split(" "), typed: q.split(" ").map(() => "") })
          // No lists yet: every match is ranked.
          expect(yield* searchCandidates(sql, sql, sought("quillon"), undefined, 20)).toBeUndefined()
          const exact = yield* Effect.forEach(QUERIES, ({ q, category }) => page(q, category))
          for (const ids of exact) expect(ids.length).toBeGreaterThan(0)

          expect(yield* build(sql)).toBeGreaterThan(0)
          // The build analyzed the catalog (an embedded store has no autovacuum to do it).
          const [stats] = yield* sql<{
            rows: number
          }>`SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = 'product_search'::regclass`
          expect(stats?.rows).toBe(PRODUCTS)
          const [state] = yield* sql<{ min_df: number }>`SELECT min_df FROM search_lists_state`
          expect(state?.min_df).toBe(50)
          const candidates = yield* searchCandidates(sql, sql, sought("quillon"), undefined, 20)
          expect(candidates).toBeDefined()
          // Bounded: the list's depth, not the 200 products that have the word.
          expect(candidates!.length).toBeLessThanOrEqual(200)
          const rare = yield* searchCandidates(sql, sql, sought("zzyzzyx"), undefined, 20)
          expect(rare).toBeUndefined()
          // The start of 300 rare words, all in names: their best 200 name matches, not every match's vector.
          const start = yield* searchCandidates(sql, sql, { words: ["zeph"], typed: ["zeph"] }, undefined, 20)
          expect(start?.length).toBe(200)
          // A start of that many name matches was searched when the lists were built (search_starts), every length of
          // it that has them: the same candidates as its ranges give.
          const kept = yield* sql<{ prefix: string }>`SELECT prefix FROM search_starts WHERE category_key = '' ORDER BY prefix`
          expect(kept.map((row) => row.prefix)).toEqual(expect.arrayContaining(["zep", "zeph", "zephy", "zephyr"]))
          // Read from the ranges (as lists built without the starts are), while a build is said to be under way: the
          // rebuild such lists start (below) does not run here.
          yield* sql`UPDATE search_lists_state SET starts_xid = NULL, building_since = now()`
          const fromRanges = yield* searchCandidates(sql, sql, { words: ["zeph"], typed: ["zeph"] }, undefined, 20)
          const typedWithWord = yield* searchCandidates(sql, sql, { words: ["zeph", "quillon"], typed: ["zeph", ""] }, undefined, 20)
          yield* sql`UPDATE search_lists_state SET starts_xid = built_xid, building_since = NULL`
          expect([...start!].sort()).toEqual([...fromRanges!].sort())
          const typedWithWordKept = yield* searchCandidates(sql, sql, { words: ["zeph", "quillon"], typed: ["zeph", ""] }, undefined, 20)
          expect([...typedWithWordKept!].sort()).toEqual([...typedWithWord!].sort())
          const fromLists = yield* Effect.forEach(QUERIES, ({ q, category }) => page(q, category))
          expect(fromLists).toEqual(exact)
          // Fresh lists are not built again; lists a process of an earlier release built, without the starts, are
          // read, and built again (a search on a catalog of 20,000 products or more starts that build).
          expect(yield* build(sql)).toBeUndefined()
          yield* sql`UPDATE search_lists_state SET starts_xid = NULL`
          expect(yield* searchCandidates(sql, sql, sought("quillon"), undefined, 20)).toBeDefined()
          expect(yield* build(sql)).toBeGreaterThan(0)
          const [state2] = yield* sql<{ with_starts: boolean }>`SELECT starts_xid = built_xid AS with_starts FROM search_lists_state`
          expect(state2?.with_starts).toBe(true)
          expect(yield* Effect.forEach(QUERIES, ({ q, category }) => page(q, category))).toEqual(exact)
          // Lists a process of the earlier form built (no list of every category's best, no names) are not read.
          yield* sql`UPDATE search_lists_state SET built_format = 1`
          expect(yield* searchCandidates(sql, sql, sought("quillon"), undefined, 20)).toBeUndefined()
          expect(yield* Effect.forEach(QUERIES, ({ q, category }) => page(q, category))).toEqual(exact)
        })
      )
    })
  })

/** 300 products, all with one common word: more matches than a large catalog's search ranks (RELEVANCE_WINDOW). */
const windowInputs = Array.from({ length: 300 }, (_, i) => {
  const record = generateRecord(31, i)
  return fromImportRecord({ ...record, ai_summary: `${record.ai_summary} zoltrax${i % 3 === 0 ? " zoltrax" : ""}` }, record.id as ProductId)
    .input
})

const windowBehaviours = (name: string, stores: Layer.Layer<CatalogStore | SqlClient.SqlClient, unknown>) =>
  describe(`relevance pages of a large catalog (${name})`, () => {
    layer(stores, { timeout: "120 seconds" })((it) => {
      it.effect(`every page ranks the best matches only: ${RELEVANCE_WINDOW} in all, each at the cost of its page`, () =>
        Effect.gen(function* () {
          const catalog = yield* CatalogStore
          const sql = yield* SqlClient.SqlClient
          yield* catalog.upsert(windowInputs)
          expect(yield* build(sql)).toBeGreaterThan(0)
          const seen: Array<string> = []
          let cursor: string | undefined
          let pages = 0
          do {
            const page = yield* catalog.list({ q: "zoltrax", sort: "relevance", limit: 30, cursor })
            seen.push(...page.items.map((item) => item.id))
            cursor = page.nextCursor ?? undefined
            pages++
          } while (cursor !== undefined && pages < 20)
          expect(seen).toHaveLength(RELEVANCE_WINDOW)
          expect(new Set(seen).size).toBe(RELEVANCE_WINDOW)
          expect(pages).toBe(Math.ceil(RELEVANCE_WINDOW / 30))
          // The first of those pages is the first page as it always was, and the best match (two zoltrax) leads.
          const first = yield* catalog.list({ q: "zoltrax", sort: "relevance", limit: 30 })
          expect(first.items.map((item) => item.id)).toEqual(seen.slice(0, 30))
        })
      )
    })
  })

const { pglite, server } = testStores()
reportLeftOut("search lists", storesLeftOut())
if (pglite) windowBehaviours("pglite", layerPglite())
if (server !== undefined)
  windowBehaviours("postgres", Layer.unwrap(Effect.map(freshDatabaseUrl(server), ({ url }) => layerPostgres(Redacted.make(url)))))
if (pglite) behaviours("pglite", layerPglite())
if (server !== undefined)
  behaviours("postgres", Layer.unwrap(Effect.map(freshDatabaseUrl(server), ({ url }) => layerPostgres(Redacted.make(url)))))
