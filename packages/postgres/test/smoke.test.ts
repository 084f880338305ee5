import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { migrate, PgliteClient } from "../src/index.ts"

describe("pglite", () => {
  it.effect("migrates and answers", () =>
    Effect.gen(function*() {
      const ran = yield* migrate
      assert.deepStrictEqual(ran.map(([id]) => id), [1])
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ s: number }>`SELECT productdir_trust_score(90, 10) AS s`
      assert.strictEqual(rows[0]?.s, 83)
      const again = yield* migrate
      assert.deepStrictEqual(again, [])
    }).pipe(Effect.provide(PgliteClient.layer())), 60_000)
})
