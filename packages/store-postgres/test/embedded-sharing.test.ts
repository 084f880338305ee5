/**
 * The embedded database shared over its local socket: clients of one PGlite
 * session never see each other's exchanges or transactions (PgliteSession.ts).
 */
import { PGlite } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, type Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PgliteDuplex } from "../src/embedded/PgliteDuplex.ts"
import { PgliteSession } from "../src/embedded/PgliteSession.ts"
import * as SocketServer from "../src/embedded/SocketServer.ts"

const client = (options: { readonly path: string } | { readonly stream: () => PgliteDuplex }) =>
  PgClient.layer({ ...options, ssl: false, username: "postgres", database: "postgres", password: Redacted.make("x"), maxConnections: 1 })

/** A session served on a socket in a fresh directory, plus its own in-process client. */
const shared = Effect.gen(function* () {
  const db = yield* Effect.acquireRelease(
    Effect.promise(() => PGlite.create()),
    (db) => Effect.promise(() => db.close())
  )
  const session = new PgliteSession(db)
  const folder = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "productdir-socket-"))),
    (folder) => Effect.sync(() => rmSync(folder, { recursive: true, force: true }))
  )
  const path = join(folder, SocketServer.SOCKET_NAME)
  yield* SocketServer.serve(session, path)
  yield* Effect.promise(() =>
    db.exec("CREATE TABLE counter (n int NOT NULL); INSERT INTO counter VALUES (0); CREATE TABLE marks (who text)")
  )
  return { db, session, path }
})

/** Read-modify-write in a transaction: any interleaving of two clients loses an increment. */
const increment = SqlClient.SqlClient.use((sql) =>
  sql.withTransaction(
    Effect.gen(function* () {
      const [row] = yield* sql<{ n: number }>`SELECT n FROM counter`
      yield* sql`UPDATE counter SET n = ${row!.n + 1}`
    })
  )
)

describe("embedded database shared on its socket", () => {
  it.live(
    "three clients (two on the socket, one in process) lose no increment and read no one else's rows",
    () =>
      Effect.gen(function* () {
        const { db, path, session } = yield* shared
        const runs = (layer: Layer.Layer<SqlClient.SqlClient, unknown>, who: string) =>
          Effect.forEach(
            Array.from({ length: 150 }),
            (_, i) =>
              Effect.gen(function* () {
                yield* increment
                // A query whose rows must be its own: an interleaved exchange would answer another client's.
                const sql = yield* SqlClient.SqlClient
                const [echo] = yield* sql<{ who: string }>`SELECT ${`${who}-${i}`}::text AS who`
                assert.strictEqual(echo!.who, `${who}-${i}`)
              }),
            { concurrency: 4 }
          ).pipe(Effect.provide(layer))
        yield* Effect.all(
          [runs(client({ path }), "a"), runs(client({ path }), "b"), runs(client({ stream: () => new PgliteDuplex(session) }), "c")],
          { concurrency: "unbounded" }
        )
        const { rows } = yield* Effect.promise(() => db.query<{ n: number }>("SELECT n FROM counter"))
        assert.strictEqual(rows[0]!.n, 450)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "an answer of several megabytes reaches a socket client whole (PGlite reuses the memory it hands out)",
    () =>
      Effect.gen(function* () {
        const { path } = yield* shared
        // The integrity pass reads its window as one bytea per thousand pages: megabytes in one message.
        const rows = yield* SqlClient.SqlClient.use((sql) =>
          Effect.forEach(
            [1, 2, 3],
            () =>
              sql<{ bytes: Uint8Array }>`
              SELECT string_agg(int8send(g) || textsend(md5(g::text)), ''::bytea ORDER BY g) AS bytes
              FROM generate_series(1, 60000) g`
          )
        ).pipe(Effect.provide(client({ path })))
        for (const [row] of rows) {
          const bytes = Buffer.from(row!.bytes)
          assert.strictEqual(bytes.length, 60_000 * 40)
          // Every record where it belongs: its number, then its digest's text.
          for (const g of [1, 30_000, 60_000]) assert.strictEqual(Number(bytes.readBigInt64BE((g - 1) * 40)), g)
        }
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "a client that disconnects inside a transaction leaves nothing behind, and the others go on",
    () =>
      Effect.gen(function* () {
        const { db, path } = yield* shared
        // A raw client: begin, insert, and vanish without COMMIT.
        yield* Effect.scoped(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            yield* sql`BEGIN`
            yield* sql`INSERT INTO marks VALUES ('abandoned')`
          }).pipe(Effect.provide(client({ path })))
        )
        const after = yield* SqlClient.SqlClient.use((sql) =>
          Effect.gen(function* () {
            yield* sql`INSERT INTO marks VALUES ('kept')`
            return yield* sql<{ who: string }>`SELECT who FROM marks ORDER BY who`
          })
        ).pipe(Effect.provide(client({ path })))
        assert.deepStrictEqual(
          after.map((r) => r.who),
          ["kept"]
        )
        const { rows } = yield* Effect.promise(() =>
          db.query<{ open: boolean }>("SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS open")
        )
        assert.isFalse(rows[0]!.open)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "what a socket client sets in the session lasts its own turn: the owner's connection finds its settings, tables and statements",
    () =>
      Effect.gen(function* () {
        const { path, session } = yield* shared
        const owner = client({ stream: () => new PgliteDuplex(session) })
        const read = SqlClient.SqlClient.use((sql) => sql<{ n: number }>`SELECT n FROM counter`)
        // The owner prepares its statements first (they are named and kept, as the API's are).
        for (let i = 0; i < 3; i++) assert.strictEqual((yield* read.pipe(Effect.provide(owner)))[0]!.n, 0)
        // What psql or pg_dump may leave behind on the socket: settings, a shadowing temporary table, statements gone.
        yield* SqlClient.SqlClient.use((sql) =>
          Effect.gen(function* () {
            yield* sql.unsafe("CREATE TEMP TABLE counter (n int)")
            yield* sql.unsafe("DEALLOCATE ALL")
            yield* sql.unsafe("PREPARE stray AS SELECT 1")
            yield* sql.unsafe("SET search_path TO ''")
            yield* sql.unsafe("SET statement_timeout = 1")
            yield* sql.unsafe("SET default_transaction_read_only = on")
          })
        ).pipe(Effect.provide(client({ path })))
        const after = yield* SqlClient.SqlClient.use((sql) =>
          Effect.gen(function* () {
            const rows = yield* sql<{ n: number }>`SELECT n FROM counter`
            yield* sql`UPDATE counter SET n = n + 1`
            const [settings] = yield* sql<{ path: string; readOnly: string }>`
              SELECT current_setting('search_path') AS path, current_setting('default_transaction_read_only') AS "readOnly"`
            const statements = yield* sql<{ name: string }>`SELECT name FROM pg_prepared_statements WHERE name = 'stray'`
            return { n: rows[0]!.n, settings: settings!, strays: statements.length }
          })
        ).pipe(Effect.provide(owner))
        assert.strictEqual(after.n, 0)
        assert.notStrictEqual(after.settings.path, "")
        assert.strictEqual(after.settings.readOnly, "off")
        assert.strictEqual(after.strays, 0)
        // And the next socket client starts clean as well.
        const next = yield* read.pipe(Effect.provide(client({ path })))
        assert.strictEqual(next[0]!.n, 1)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a database that stops answering is seen: how long PGlite has been on one exchange, which /healthz reads",
    () =>
      Effect.gen(function* () {
        const db = yield* Effect.acquireRelease(
          Effect.promise(() => PGlite.create()),
          (db) => Effect.promise(() => db.close())
        )
        const session = new PgliteSession(db)
        expect(session.busyFor()).toBeUndefined()
        // A stopped database, as a full disk leaves PGlite: its exchanges never end (a fault put in PGlite itself).
        const stopped = new Promise<never>(() => undefined)
        const run = db.runExclusive.bind(db)
        db.runExclusive = (() => stopped) as typeof db.runExclusive
        const connection = session.connect()
        void connection.send(new Uint8Array([0x51, 0, 0, 0, 13, ...new TextEncoder().encode("SELECT 1"), 0]), 0x51, () => undefined)
        yield* Effect.sleep("50 millis")
        expect(session.busyFor()).toBeGreaterThanOrEqual(40)
        expect(session.busyFor(performance.now() + 60_000)).toBeGreaterThan(60_000)
        db.runExclusive = run
      }).pipe(Effect.scoped),
    60_000
  )
})
