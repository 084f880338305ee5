import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { addressVoter, type ProductId, ProblemStore, VoteLedger } from "@productdir/domain"
import { migrateThrough } from "../src/migrations/index.ts"
import { layerSql } from "../src/StoreLayer.ts"
import { reportsByKey } from "@productdir/testkit"
import { databases } from "./databases.ts"

type Client = (typeof databases)[number]["client"]

/**
 * A database as the release after migration `through` left it, holding one product and the reports `earlier`
 * ([voter, key as that release made it, summary]); then the stores of this version over it (its migrations run).
 */
const keyedByAnEarlierRelease = (
  client: Client,
  through: Parameters<typeof migrateThrough>[0],
  id: ProductId,
  earlier: ReadonlyArray<readonly [string, string, string]>
) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const database = Layer.succeedContext(yield* Layer.buildWithScope(client(), scope))
    yield* migrateThrough(through).pipe(Effect.provide(database))
    const sql = Context.get(yield* Layer.buildWithScope(database, scope), SqlClient.SqlClient)
    yield* sql`
      INSERT INTO products (id, slug, name, name_key, category, content, seed_up, seed_down, trust_up, trust_down)
      VALUES (${id}::uuid, ${`p-${id.slice(0, 8)}`}, 'Keyed', 'keyed', 'Test', '{}'::jsonb, 0, 0, 0, 0)`
    for (const [voter, key, summary] of earlier) {
      yield* sql`INSERT INTO votes (product_id, voter, direction) VALUES (${id}::uuid, ${`ip:${voter}`}, 'down')`
      yield* sql`
        INSERT INTO problem_reports (product_id, problem_key, voter, summary)
        VALUES (${id}::uuid, ${key}, ${`ip:${voter}`}, ${summary})`
    }
    const before = yield* sql<{ n: number }>`SELECT count(DISTINCT problem_key)::int AS n FROM problem_reports`
    assert.strictEqual(before[0]!.n, earlier.length)
    return yield* Layer.buildWithScope(layerSql(database), scope)
  })

describe.each(databases)("problem keys, $name", ({ client }) => {
  it.effect(
    "reports keyed before the look-alike rule are one problem once migrated, and later reports join it",
    () =>
      Effect.gen(function* () {
        const id = "0b6f8a52-7d1e-4c3a-9f0e-2a5b8c7d6e41" as ProductId
        // As the earlier release keyed them: trimmed, collapsed, lower case, nothing more.
        const stores = yield* keyedByAnEarlierRelease(
          client,
          "0014_search_starts",
          id,
          ["Caf\u00e9 export crashes", "Cafe\u0301 export crashes", "Caf\u200b\u00e9 export crashes"].map(
            (summary, i) => [`v${i + 1}`, summary.toLowerCase(), summary] as const
          )
        )
        const reported = yield* ProblemStore.use((p) => p.reported(id)).pipe(Effect.provide(stores))
        assert.deepStrictEqual(reportsByKey(reported), [["caf\u00e9 export crashes", 3]])
        // A report typed the way the oldest was joins it.
        yield* VoteLedger.use((l) =>
          l.cast({ entity: id, voter: addressVoter("v4"), direction: "down", reason: "CAFE\u0301 EXPORT CRASHES" })
        ).pipe(Effect.provide(stores))
        const after = yield* ProblemStore.use((p) => p.reported(id)).pipe(Effect.provide(stores))
        assert.deepStrictEqual(
          reportsByKey(after).map(([, reports]) => reports),
          [4]
        )
      }).pipe(Effect.scoped),
    120_000
  )

  it.effect(
    "reports keyed before look-alike letters were read as Latin are one problem once migrated, and later reports join it",
    () =>
      Effect.gen(function* () {
        const id = "4a1c9e3f-2b7d-4e8a-b6c5-1d0f9e8a7b62" as ProductId
        // As the earlier release keyed them: the Cyrillic О (U+041E) and ѕ (U+0455) kept as they were.
        const stores = yield* keyedByAnEarlierRelease(client, "0016_agents_by_key", id, [
          ["v1", "no sso on the team plan", "no SSO on the team plan"],
          ["v2", "no ss\u043e on the team plan", "no SS\u041e on the team plan"],
          ["v3", "no \u0455so on the team plan", "no \u0455so on the team plan"]
        ])
        const reported = yield* ProblemStore.use((p) => p.reported(id)).pipe(Effect.provide(stores))
        assert.deepStrictEqual(reportsByKey(reported), [["no sso on the team plan", 3]])
        // A look-alike typed today joins it too.
        yield* VoteLedger.use((l) =>
          l.cast({ entity: id, voter: addressVoter("v4"), direction: "down", reason: "No \u0405S\u041e on the team plan" })
        ).pipe(Effect.provide(stores))
        const after = yield* ProblemStore.use((p) => p.reported(id)).pipe(Effect.provide(stores))
        assert.deepStrictEqual(
          reportsByKey(after).map(([, reports]) => reports),
          [4]
        )
      }).pipe(Effect.scoped),
    120_000
  )
})
