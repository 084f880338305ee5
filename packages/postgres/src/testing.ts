/**
 * Test support: a fresh, throw-away database per test file, on the server
 * named by DATABASE_URL (dropped afterwards) or in an in-memory PGlite.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"

const withAdmin = <A, E>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  SqlClient.SqlClient.use(f).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))

/** The URL of a new empty database on the server of `serverUrl`, dropped when the scope closes. */
export const freshDatabaseUrl = (serverUrl: string) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const name = `productdir_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
      yield* withAdmin(serverUrl, (sql) => sql.unsafe(`CREATE DATABASE "${name}"`))
      const url = new URL(serverUrl)
      url.pathname = `/${name}`
      return { name, url: url.toString() }
    }),
    ({ name }) => withAdmin(serverUrl, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).pipe(Effect.ignore)
  )
