import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { addressVoter, type ProductId, ProblemStore, VoteLedger } from "@productdir/domain"
import { migrateThrough } from "../src/migrations/index.ts"
import { layerSql } from "../src/StoreLayer.ts"
import { databases } from "./databases.ts"

describe.each(databases)("problem keys, $name", ({ client }) => {
  it.effect(
    "reports keyed before the look-alike rule are one problem once migrated, and later reports join it",
    () =>
      Effect.gen(function* () {
        const scope = yield* Effect.scope
        const database = Layer.succeedContext(yield* Layer.buildWithScope(client(), scope))
        yield* migrateThrough("0014_search_starts").pipe(Effect.provide(database))
        const sql = Context.get(yield* Layer.buildWithScope(database, scope), SqlClient.SqlClient)
        const id = "0b6f8a52-7d1e-4c3a-9f0e-2a5b8c7d6e41" as ProductId
        yield* sql`
          INSERT INTO products (id, slug, name, name_key, category, content, seed_up, seed_down, trust_up, trust_down)
          VALUES (${id}::uuid, 'cafe-app', 'Cafe App', 'cafe app', 'Test', '{}'::jsonb, 0, 0, 0, 0)`
        // As the earlier release keyed them: trimmed, collapsed, lower case, nothing more.
        const earlier = [
          ["v1", "Caf\u00e9 export crashes"],
          ["v2", "Cafe\u0301 export crashes"],
          ["v3", "Caf\u200b\u00e9 export crashes"]
        ] as const
        for (const [voter, summary] of earlier) {
          yield* sql`
            INSERT INTO votes (product_id, voter, direction) VALUES (${id}::uuid, ${`ip:${voter}`}, 'down')`
          yield* sql`
            INSERT INTO problem_reports (product_id, problem_key, voter, summary)
            VALUES (${id}::uuid, ${summary.toLowerCase()}, ${`ip:${voter}`}, ${summary})`
        }
        const before = yield* sql<{ n: number }>`SELECT count(DISTINCT problem_key)::int AS n FROM problem_reports`
        assert.strictEqual(before[0]!.n, 3)

        const stores = yield* Layer.buildWithScope(layerSql(database), scope)
        const reported = yield* ProblemStore.use((p) => p.reported(id)).pipe(Effect.provide(stores))
        assert.deepStrictEqual(
          reported.map((r) => [r.key, r.summary, r.reports]),
          [["caf\u00e9 export crashes", "Caf\u00e9 export crashes", 3]]
        )
        // A report typed the way the oldest was joins it.
        yield* VoteLedger.use((l) =>
          l.cast({ entity: id, voter: addressVoter("v4"), direction: "down", reason: "CAFE\u0301 EXPORT CRASHES" })
        ).pipe(Effect.provide(stores))
        const after = yield* ProblemStore.use((p) => p.reported(id)).pipe(Effect.provide(stores))
        assert.deepStrictEqual(
          after.map((r) => r.reports),
          [4]
        )
      }).pipe(Effect.scoped),
    120_000
  )

  it.effect(
    "reports keyed before look-alike letters were read as Latin are one problem once migrated, and later reports join it",
    () =>
      Effect.gen(function* () {
        const scope = yield* Effect.scope
        const database = Layer.succeedContext(yield* Layer.buildWithScope(client(), scope))
        yield* migrateThrough("0016_agents_by_key").pipe(Effect.provide(database))
        const sql = Context.get(yield* Layer.buildWithScope(database, scope), SqlClient.SqlClient)
        const id = "4a1c9e3f-2b7d-4e8a-b6c5-1d0f9e8a7b62" as ProductId
        yield* sql`
          INSERT INTO products (id, slug, name, name_key, category, content, seed_up, seed_down, trust_up, trust_down)
          VALUES (${id}::uuid, 'sso-app', 'SSO App', 'sso app', 'Test', '{}'::jsonb, 0, 0, 0, 0)`
        // As the earlier release keyed them: the Cyrillic О (U+041E) and ѕ (U+0455) kept as they were.
        const earlier = [
          ["v1", "no SSO on the team plan", "no sso on the team plan"],
          ["v2", "no SS\u041e on the team plan", "no ss\u043e on the team plan"],
          ["v3", "no \u0455so on the team plan", "no \u0455so on the team plan"]
        ] as const
        for (const [voter, summary, key] of earlier) {
          yield* sql`INSERT INTO votes (product_id, voter, direction) VALUES (${id}::uuid, ${`ip:${voter}`}, 'down')`
          yield* sql`
            INSERT INTO problem_reports (product_id, problem_key, voter, summary)
            VALUES (${id}::uuid, ${key}, ${`ip:${voter}`}, ${summary})`
        }
        const before = yield* sql<{ n: number }>`SELECT count(DISTINCT problem_key)::int AS n FROM problem_reports`
        assert.strictEqual(before[0]!.n, 3)

        const stores = yield* Layer.buildWithScope(layerSql(database), scope)
        const reported = yield* ProblemStore.use((p) => p.reported(id)).pipe(Effect.provide(stores))
        assert.deepStrictEqual(
          reported.map((r) => [r.key, r.reports]),
          [["no sso on the team plan", 3]]
        )
        // A look-alike typed today joins it too.
        yield* VoteLedger.use((l) =>
          l.cast({ entity: id, voter: addressVoter("v4"), direction: "down", reason: "No \u0405S\u041e on the team plan" })
        ).pipe(Effect.provide(stores))
        const after = yield* ProblemStore.use((p) => p.reported(id)).pipe(Effect.provide(stores))
        assert.deepStrictEqual(
          after.map((r) => r.reports),
          [4]
        )
      }).pipe(Effect.scoped),
    120_000
  )
})
