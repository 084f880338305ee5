/**
 * Migration 0013_search_names, frozen: the SQL it ran when it shipped, whatever the code says today.
 * Search at a million products (../searchLists.ts), the start of a word: a start such as "clou" is
 * the start of thousands of rare words (brand words in names share the common words' syllables), and
 * ranking every product that has one read tens of thousands of vectors (6.5 s at the worst). This table
 * holds, for every rare lexeme (not listed in search_lists) that a product has in its name, the
 * product, its score for that lexeme alone, its category and trust (as of the build): the best name
 * matches of a start are then one range of this index, read without the table (the columns are
 * included). Built beside the lists; empty until the first build. The lists are built again after this
 * migration: their new rows (every category's best, key '') and these are needed together.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export const migration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE search_names (
      lexeme       text COLLATE "C" NOT NULL,
      product_id   uuid NOT NULL,
      score        real NOT NULL,
      trust        smallint NOT NULL,
      category_key text NOT NULL,
      PRIMARY KEY (lexeme, product_id) INCLUDE (score, trust, category_key)
    )`
  // Until the lists are built again, searches rank every match, as before the first build.
  yield* sql`UPDATE search_lists_state SET built_xid = NULL, built_at = NULL`
})
