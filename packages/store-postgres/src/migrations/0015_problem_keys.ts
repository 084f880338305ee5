/**
 * Migration 0015_problem_keys, frozen: what it ran when it shipped, whatever the code says today.
 * A problem's key (the text its reports are counted under) was the reason trimmed, collapsed and in
 * lower case: "é" typed as one character and as "e" and a combining accent, or a reason with a
 * zero-width space typed into it, made two problems that read the same, each with part of the count.
 * From this release the key also folds compatibility forms (NFKC) and drops invisible characters
 * (@productdir/domain normalizeReason). This re-keys the reports written before, so the old look-alikes
 * are one problem too: only keys with a character outside ASCII can change, and a voter has one report
 * per product, so no two rows meet. The summaries are shown composed (NFC) from now on; those stored are
 * composed here too. The rule is copied, not imported: a migration holds the code it shipped with.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu
const keyOf = (reason: string): string => reason.normalize("NFKC").replace(INVISIBLE, "").trim().replace(/\s+/g, " ").toLowerCase()

export const migration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ product_id: string; problem_key: string; voter: string; summary: string }>`
    SELECT product_id, problem_key, voter, summary FROM problem_reports
    WHERE problem_key ~ '[^\\x01-\\x7f]' OR summary ~ '[^\\x01-\\x7f]'`
  for (const row of rows) {
    const key = keyOf(row.problem_key)
    const summary = row.summary.normalize("NFC")
    if (key === row.problem_key && summary === row.summary) continue
    yield* sql`
      UPDATE problem_reports SET problem_key = ${key}, summary = ${summary}
      WHERE product_id = ${row.product_id} AND problem_key = ${row.problem_key} AND voter = ${row.voter}`
  }
})
