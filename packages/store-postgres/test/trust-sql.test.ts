import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { trustScore } from "@productdir/domain"
import { migrate, PgliteClient } from "../src/index.ts"
import { installRoutines, ROUTINES } from "../src/routines/index.ts"

// sort=trust orders by a generated column over the judged score; it must agree with the domain's score to the last point.
describe("productdir_judged_score", () => {
  it.effect(
    "equals the domain's trustScore over weighted evidence (thousandths of a vote)",
    () =>
      Effect.gen(function* () {
        yield* migrate
        yield* installRoutines(ROUTINES)
        const sql = yield* SqlClient.SqlClient
        const pairs: Array<[number, number]> = []
        // Sums of the weights there are (a whole vote, a fortieth, a hundredth), and a product exactly on a half point.
        for (const weight of [1_000, 25, 10, 35])
          for (let up = 0; up <= 60; up++) for (let down = 0; down <= 60; down += 3) pairs.push([up * weight, down * weight])
        pairs.push([999_999_999_000, 1_000_000_000_000], [1_000_000_000_000, 0], [123_456_000, 7_000], [7_000, 123_456_000], [100, 0])
        const rows = yield* sql<{ up: string; down: string; score: number }>`
        SELECT up, down, productdir_judged_score(up, down) AS score
        FROM jsonb_to_recordset(${JSON.stringify(pairs.map(([up, down]) => ({ up, down })))}::jsonb) AS r(up bigint, down bigint)`
        const mismatches = rows.filter((r) => r.score !== trustScore({ up: Number(r.up), down: Number(r.down) }))
        assert.strictEqual(rows.length, pairs.length)
        assert.deepStrictEqual(mismatches, [])
      }).pipe(Effect.provide(PgliteClient.layerInMemory())),
    60_000
  )
})
