/**
 * Where a server's schema stands against this version, read without changing anything: what a dry run
 * needs before it builds the store (whose start migrates and installs routines, writes a dry run must not
 * make). Empty: no productdir schema at all; Behind: migrations or routines this version would apply.
 */
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, type Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { StoreError } from "@productdir/domain"
import { KNOWN_MIGRATIONS, MIGRATIONS_TABLE } from "./migrations/index.ts"
import { ROUTINES } from "./routines/index.ts"
import { hashOf } from "./routines/Routine.ts"

export type SchemaState =
  | { readonly _tag: "Empty" }
  | { readonly _tag: "Current" }
  | { readonly _tag: "Behind"; readonly migrations: ReadonlyArray<string>; readonly routines: ReadonlyArray<string> }

export const schemaState = (url: Redacted.Redacted): Effect.Effect<SchemaState, StoreError> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [table] = yield* sql<{ present: boolean }>`SELECT to_regclass(${MIGRATIONS_TABLE}) IS NOT NULL AS present`
    if (table?.present !== true) return { _tag: "Empty" } as const
    const ran = new Set((yield* sql<{ id: number }>`SELECT migration_id AS id FROM ${sql(MIGRATIONS_TABLE)}`).map((r) => Number(r.id)))
    const migrations = KNOWN_MIGRATIONS.filter((id) => !ran.has(Number(id.slice(0, id.indexOf("_")))))
    const [routinesTable] = yield* sql<{ present: boolean }>`SELECT to_regclass('productdir_routines') IS NOT NULL AS present`
    const recorded =
      routinesTable?.present === true
        ? new Map((yield* sql<{ name: string; hash: string }>`SELECT name, hash FROM productdir_routines`).map((r) => [r.name, r.hash]))
        : new Map<string, string>()
    const routines = ROUTINES.filter((routine) => recorded.get(routine.name) !== hashOf(routine)).map((routine) => routine.name)
    return migrations.length === 0 && routines.length === 0
      ? ({ _tag: "Current" } as const)
      : { _tag: "Behind" as const, migrations, routines }
  }).pipe(
    Effect.provide(PgClient.layer({ url, maxConnections: 1, connectTimeout: Duration.seconds(5) })),
    Effect.mapError((error) => new StoreError({ operation: "read the schema", detail: error.message }))
  )
