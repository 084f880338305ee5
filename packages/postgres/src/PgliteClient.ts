/**
 * The embedded store: PGlite in this process (or in a data directory),
 * spoken to by the same `@effect/sql-pg` client as a server, through an
 * in-memory wire-protocol stream.
 */
import { PGlite } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { mkdirSync } from "node:fs"
import { PgliteDuplex } from "./PgliteDuplex.ts"

/** `dataDir` undefined: a fresh in-memory database (tests); else the directory is created and reused. */
export const layer = (options: { readonly dataDir?: string | undefined } = {}) =>
  Layer.unwrap(Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.promise(() => {
        if (options.dataDir !== undefined) mkdirSync(options.dataDir, { recursive: true })
        return options.dataDir !== undefined ? PGlite.create({ dataDir: options.dataDir }) : PGlite.create()
      }),
      (db) => Effect.promise(() => db.close())
    )
    return PgClient.layer({
      stream: () => new PgliteDuplex(db),
      ssl: false,
      username: "postgres",
      database: "postgres",
      password: Redacted.make("unused"),
      // PGlite is a single backend session: one client connection, queries queue in the pool.
      maxConnections: 1
    })
  }))
