/**
 * SQL kept as SQL (src/sqlFile.ts): a `.sql` migration is found through the package's exports, wherever the package
 * is installed, and cut into the statements it holds; what the migrations leave is only what the service runs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { KNOWN_MIGRATIONS, migrate } from "../src/migrations/index.ts"
import { routinesOf } from "../src/routines/Routine.ts"
import { shippedSql, sqlStatements } from "../src/sqlFile.ts"
import { databases } from "./databases.ts"

describe("a SQL file's statements", () => {
  it("are cut at each ; outside quotes, dollar quotes and comments, each from its first code", () => {
    const text = `-- a header; with a semicolon
CREATE TABLE t (a text DEFAULT 'x;y', "b;c" int); /* a comment; */
CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $fn$ SELECT 1; $fn$;
CREATE FUNCTION g() RETURNS text LANGUAGE sql AS $$ SELECT 'it''s;'; $$;
-- a closing comment only;
`
    assert.deepStrictEqual(sqlStatements(text), [
      `CREATE TABLE t (a text DEFAULT 'x;y', "b;c" int)`,
      "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $fn$ SELECT 1; $fn$",
      "CREATE FUNCTION g() RETURNS text LANGUAGE sql AS $$ SELECT 'it''s;'; $$"
    ])
  })

  it("of every .sql migration are found through the package's exports, and none is empty", () => {
    const sqlOnes = KNOWN_MIGRATIONS.filter((id) => !["0015_problem_keys", "0017_problem_look_alikes"].includes(id))
    for (const id of sqlOnes) {
      const statements = sqlStatements(shippedSql(`migrations/${id}.sql`))
      assert.isAbove(statements.length, 0, id)
      for (const statement of statements) assert.match(statement, /^[A-Z]/u, id)
    }
  })
})

describe("a routines file", () => {
  const text = `-- what the file is about

-- routine: productdir_a (rewrites trust scores)
DROP FUNCTION IF EXISTS productdir_a(bigint);

CREATE OR REPLACE FUNCTION productdir_a(x int) RETURNS int
LANGUAGE sql AS $fn$ SELECT x + {{STEP}} $fn$;

-- the next one's words
-- routine: v
CREATE VIEW v AS SELECT 1;
`

  it("holds its routines under their markers, the domain's constants filled in", () => {
    assert.deepStrictEqual(routinesOf(text, { STEP: 5 }), [
      {
        name: "productdir_a",
        statements: [
          "DROP FUNCTION IF EXISTS productdir_a(bigint)",
          "CREATE OR REPLACE FUNCTION productdir_a(x int) RETURNS int\nLANGUAGE sql AS $fn$ SELECT x + 5 $fn$"
        ],
        body: " SELECT x + 5 ",
        rewrites: ["trust scores"]
      },
      { name: "v", statements: ["CREATE VIEW v AS SELECT 1"] }
    ])
  })

  it("refuses a constant it is not given", () => {
    assert.throws(() => routinesOf(text), /\{\{STEP\}\}/u)
  })
})

for (const database of databases) {
  describe(`the migrations alone (${database.name})`, () => {
    it.effect(
      "leave no function in a shape a routine has replaced",
      () =>
        Effect.gen(function* () {
          yield* migrate
          const sql = yield* SqlClient.SqlClient
          const functions = yield* sql<{ name: string; args: string }>`
            SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args
            FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'public' AND p.proname IN ('productdir_trust_score', 'productdir_cast_vote', 'productdir_cast_vote_within')`
          assert.deepStrictEqual(functions, [])
        }).pipe(Effect.provide(database.client())),
      { timeout: 120_000 }
    )
  })
}
