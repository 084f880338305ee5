import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, type Scope, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { addressVoter, CatalogStore, fromImportRecord, hasDrifted, type ProductId, slugify, VoteLedger } from "@productdir/domain"
import { sampleRecords } from "@productdir/fixtures/sample"
import { migrate, migrateThrough } from "../src/migrations/index.ts"
import { hashOf, installRoutines, ROUTINES, type Routine, judgedScoreWith } from "../src/routines/index.ts"
import { REWRITE_BATCH } from "../src/routines/rewrites.ts"
import { layerSql } from "../src/StoreLayer.ts"
import { type Client, databases } from "./databases.ts"

/** A client layer built once in `scope`, so the same database can be handed to several layers in turn. */
const openDatabase = (client: Layer.Layer<Client, unknown>, scope: Scope.Scope) =>
  Effect.map(Layer.buildWithScope(client, scope), (context) => Layer.succeedContext(context))

/** Every function of ours in the database: its identity and its body as PostgreSQL keeps it. */
const functionsIn = SqlClient.SqlClient.use(
  (sql) =>
    sql<{ name: string; args: string; body: string }>`
    SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args, p.prosrc AS body
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND p.proname LIKE 'productdir\\_%'
    ORDER BY 1, 2`
)

const viewOf = SqlClient.SqlClient.use((sql) =>
  Effect.map(sql<{ def: string }>`SELECT pg_get_viewdef('counted_votes') AS def`, (r) => r[0]!.def)
)

const products = sampleRecords().slice(0, 6)

/** Votes on the sample's first products, as `[product index, voter, direction]`. */
const BALLOTS: ReadonlyArray<readonly [number, string, "up" | "down"]> = [
  [0, "a", "up"],
  [0, "b", "down"],
  [1, "a", "down"],
  [1, "a", "up"],
  [2, "c", "down"],
  [2, "c", "down"],
  [3, "d", "up"]
]

const counters = SqlClient.SqlClient.use(
  (sql) =>
    sql<{ id: string; trust_up: string; trust_down: string; trust_score: number }>`
    SELECT id::text, trust_up::text, trust_down::text, trust_score FROM products ORDER BY id`
)

for (const database of databases) {
  describe(`routines (${database.name})`, () => {
    it.effect(
      "every routine installed is its source, and no other function of ours is there",
      () =>
        Effect.gen(function* () {
          yield* migrate
          yield* installRoutines(ROUTINES)
          const installed = yield* functionsIn
          const sources = ROUTINES.filter((r): r is Routine & { body: string } => r.body !== undefined)
          assert.deepStrictEqual(installed.map((f) => f.name).sort(), sources.map((r) => r.name).sort())
          for (const routine of sources) {
            assert.strictEqual(installed.find((f) => f.name === routine.name)?.body, routine.body, routine.name)
          }
          const sql = yield* SqlClient.SqlClient
          const view = ROUTINES.find((r) => r.name === "counted_votes")!
          yield* sql.unsafe(view.statements.at(-1)!.replace("CREATE VIEW counted_votes", "CREATE TEMP VIEW counted_votes_source"))
          const source = yield* Effect.map(sql<{ def: string }>`SELECT pg_get_viewdef('counted_votes_source') AS def`, (r) => r[0]!.def)
          assert.strictEqual(yield* viewOf, source)
          const recorded = yield* sql<{ name: string; hash: string }>`SELECT name, hash FROM productdir_routines ORDER BY name`
          assert.deepStrictEqual(
            recorded,
            ROUTINES.map((r) => ({ name: r.name, hash: hashOf(r) })).sort((a, b) => (a.name < b.name ? -1 : 1))
          )
          // A second start installs nothing.
          assert.deepStrictEqual((yield* installRoutines(ROUTINES)).installed, [])
        }).pipe(Effect.provide(database.client())),
      120_000
    )

    it.effect(
      "a database the previous release migrated, then started by this code, answers as a fresh one",
      () =>
        Effect.gen(function* () {
          const scope = yield* Effect.scope
          const inputs = products.map((r) => fromImportRecord(r, r.id as ProductId).input)
          const [first, later] = [BALLOTS.slice(0, 4), BALLOTS.slice(4)]

          // The previous release: its migrations (frozen as they shipped, the old functions with them),
          // its catalog writes (tables and search functions it had too), and its votes through the function
          // it called, with twelve positional arguments.
          const old = yield* openDatabase(database.client(), scope)
          yield* migrateThrough("0009_signature_nonces").pipe(Effect.provide(old))
          const oldSql = Context.get(yield* Layer.buildWithScope(old, scope), SqlClient.SqlClient)
          // Its catalog rows, as it wrote them: the columns it had (this code's writes name columns added since).
          for (const input of inputs) {
            yield* oldSql`
              INSERT INTO products (id, slug, name, name_key, category, content, seed_up, seed_down, trust_up, trust_down)
              VALUES (${input.id}::uuid, ${slugify(input.content.name)}, ${input.content.name}, ${input.content.name.toLowerCase()},
                ${input.content.category}, ${JSON.stringify(input.content)}::jsonb, ${input.seed.up}, ${input.seed.down},
                ${input.seed.up}, ${input.seed.down})`
          }
          for (const [i, voter, direction] of first) {
            const moved = direction === "up" ? [1, -1] : [-1, 1]
            yield* oldSql`SELECT * FROM productdir_cast_vote(${products[i]!.id}::uuid, NULL, ${`ip:${voter}`}, NULL::uuid, ${direction},
              ${new Date()}, ${direction === "up" ? 1 : 0}, ${direction === "down" ? 1 : 0}, ${moved[0]!}, ${moved[1]!}, NULL, NULL)`
          }

          // This code starts on it: the migrations since, the routines.
          const upgraded = yield* Layer.buildWithScope(layerSql(old), scope)
          // A fresh database, the same catalog and the same votes through this code.
          const fresh = yield* Layer.buildWithScope(layerSql(yield* openDatabase(database.client(), scope)), scope)
          yield* CatalogStore.use((c) => c.upsert(inputs)).pipe(Effect.provide(fresh))
          const vote = ([i, voter, direction]: readonly [number, string, "up" | "down"]) =>
            VoteLedger.use((ledger) => ledger.cast({ entity: products[i]!.id!, voter: addressVoter(voter), direction }))
          yield* Effect.forEach(first, vote).pipe(Effect.provide(fresh))
          // From here on both run this code: every later vote answers the same on both.
          const answers = yield* Effect.forEach([upgraded, fresh], (context) => Effect.forEach(later, vote).pipe(Effect.provide(context)))
          assert.deepStrictEqual(answers[0], answers[1])

          const [upgradedFunctions, freshFunctions] = yield* Effect.forEach([upgraded, fresh], (c) => Effect.provide(functionsIn, c))
          assert.deepStrictEqual(upgradedFunctions, freshFunctions)
          assert.strictEqual(yield* Effect.provide(viewOf, upgraded), yield* Effect.provide(viewOf, fresh))
          assert.deepStrictEqual(yield* Effect.provide(counters, upgraded), yield* Effect.provide(counters, fresh))
          // What the reconciliation would find on the upgraded database: nothing.
          const snapshots = yield* VoteLedger.use((ledger) => Stream.runCollect(ledger.snapshots(100))).pipe(Effect.provide(upgraded))
          assert.deepStrictEqual(snapshots.flat().filter(hasDrifted), [])
          assert.isAbove(snapshots.flat().length, 0)
        }).pipe(Effect.scoped),
      120_000
    )

    it.effect(
      "a change of the trust rule rewrites every stored score in batches; a rewrite cut off midway is finished by the next start",
      () =>
        Effect.gen(function* () {
          const scope = yield* Effect.scope
          const stores = yield* Layer.buildWithScope(layerSql(database.client()), scope)
          const sql = Context.get(stores, SqlClient.SqlClient)
          // More products than two batches: 10 up votes and none down, scored 75 with a prior of 10 votes, 92 with one of 2.
          yield* sql`
            INSERT INTO products (id, slug, name, name_key, category, content, seed_up, seed_down, trust_up, trust_down, weight_up)
            SELECT gen_random_uuid(), 'p-' || g, 'P ' || g, 'p ' || g, 'Test', '{}'::jsonb, 10, 0, 10, 0, 10000
            FROM generate_series(1, ${REWRITE_BATCH * 2 + 500}) AS g`
          const scores = Effect.map(
            sql<{ score: number; n: number }>`SELECT trust_score AS score, count(*)::int AS n FROM products GROUP BY 1 ORDER BY 1`,
            (rows) => rows.map((r) => [r.score, r.n])
          )
          const n = REWRITE_BATCH * 2 + 500
          assert.deepStrictEqual(yield* scores, [[75, n]])

          const changed = ROUTINES.map((r) => (r.name === "productdir_judged_score" ? judgedScoreWith({ votes: 2, share: 0.5 }) : r))
          const result = yield* installRoutines(changed).pipe(Effect.provide(stores))
          assert.deepStrictEqual(result.installed, ["productdir_judged_score"])
          assert.strictEqual(result.rewritten["trust scores"], n)
          assert.deepStrictEqual(yield* scores, [[92, n]])

          // Back to the domain's rule, as a process would that stopped right after installing it: the
          // function replaced and the rewrite recorded as to do, no score rewritten yet.
          const domainRule = ROUTINES.find((r) => r.name === "productdir_judged_score")!
          yield* sql.withTransaction(
            Effect.gen(function* () {
              for (const statement of domainRule.statements) yield* sql.unsafe(statement)
              yield* sql`UPDATE productdir_routines SET hash = ${hashOf(domainRule)} WHERE name = 'productdir_judged_score'`
              yield* sql`INSERT INTO productdir_rewrites (name, after, started_at) VALUES ('trust scores', '00000000-0000-0000-0000-000000000000', now())`
            })
          )
          assert.deepStrictEqual(yield* scores, [[92, n]])
          // The next start installs nothing, and finishes the rewrite.
          const next = yield* installRoutines(ROUTINES).pipe(Effect.provide(stores))
          assert.deepStrictEqual(next.installed, [])
          assert.strictEqual(next.rewritten["trust scores"], n)
          assert.deepStrictEqual(yield* scores, [[75, n]])
          assert.deepStrictEqual(yield* sql`SELECT name FROM productdir_rewrites`, [])
        }).pipe(Effect.scoped),
      120_000
    )
  })
}
