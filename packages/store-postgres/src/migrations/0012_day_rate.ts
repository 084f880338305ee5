/**
 * Migration 0012_day_rate, frozen: each product's decayed count of the last day's votes, for the burst
 * guard's second time scale (packages/domain/src/counting.ts: a drip of votes below the hour's floor,
 * sustained for days). A constant default: adding the column rewrites nothing; a product's day count
 * starts at zero and learns from the next vote on.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export const migration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE products ADD COLUMN rate_day float8 NOT NULL DEFAULT 0`
})
