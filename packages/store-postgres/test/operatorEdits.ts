import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { OperatorEdits } from "@productdir/testkit"

/** Drift by SQL, behind the services' backs. */
export const layerSqlOperatorEdits = Layer.effect(
  OperatorEdits,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return OperatorEdits.of({
      setCounters: (id, c) => sql`UPDATE products SET trust_up = ${c.up}, trust_down = ${c.down} WHERE id = ${id}`.pipe(Effect.asVoid),
      setSeed: (id, s) => sql`UPDATE products SET seed_up = ${s.up}, seed_down = ${s.down} WHERE id = ${id}`.pipe(Effect.asVoid),
      insertVote: (id, voter, direction) =>
        sql`INSERT INTO votes (product_id, voter, direction) VALUES (${id}, ${voter}, ${direction})`.pipe(Effect.asVoid),
      deleteVote: (id, voter) => sql`DELETE FROM votes WHERE product_id = ${id} AND voter = ${voter}`.pipe(Effect.asVoid)
    })
  })
)
