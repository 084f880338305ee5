/**
 * The embedded store (docs/operations.md, "The embedded database"): PGlite in this process, spoken to by the same
 * `@effect/sql-pg` client as a server, through an in-memory wire-protocol stream.
 *
 * A data directory has one owner process (embedded/DataDirOwner.ts). The API owns
 * its directory and serves the database on a Unix socket inside it; a CLI started
 * beside it finds the directory owned and connects to that socket instead, so its
 * changes are the API's changes at once. Two owners are never possible.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { StoreError } from "@productdir/domain"
import * as DataDirOwner from "./embedded/DataDirOwner.ts"
import * as DiskGuard from "./embedded/DiskGuard.ts"
import { PgliteDuplex } from "./embedded/PgliteDuplex.ts"
import { PgliteSession } from "./embedded/PgliteSession.ts"
import * as SocketServer from "./embedded/SocketServer.ts"
import { STALLED_AFTER_MS, StoreHealth } from "./StoreHealth.ts"

/** How this process uses an embedded data directory it finds. */
export interface Role {
  /** Named in the message another process prints when it finds the directory taken. */
  readonly tool: string
  /** Serve the database to local clients (the API); else join an owner that does (the CLIs). */
  readonly share: boolean
}

/** How long a CLI waits for a starting API to open its database and serve it. */
const JOIN_WAIT_MS = 30_000

const connection = {
  ssl: false,
  username: "postgres",
  database: "postgres",
  password: Redacted.make("unused"),
  // PGlite is a single backend session: one client connection, queries queue in the pool.
  maxConnections: 1
} as const

/**
 * PGlite and the contrib extensions search needs (migration 5), as a server has them: loaded when a database is
 * opened, not with this module, so that a process on a PostgreSQL server never loads them (5 MB of its memory).
 */
const loadPglite = async () => {
  const [{ PGlite }, { pg_trgm }, { unaccent }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/pg_trgm"),
    import("@electric-sql/pglite/contrib/unaccent")
  ])
  return { PGlite, extensions: { pg_trgm, unaccent } }
}

const open = (dataDir: string | undefined) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const { PGlite, extensions } = await loadPglite()
        return PGlite.create({ ...(dataDir !== undefined ? { dataDir } : {}), extensions })
      },
      catch: (error) =>
        new StoreError({
          operation: "open",
          detail: `PGlite could not open ${dataDir ?? "an in-memory database"}: ${String(error)}`,
          ...((error as { code?: string }).code === "ENOSPC" || /no space left/i.test(String(error)) ? { fault: "disk-full" as const } : {})
        })
    }),
    (db) => Effect.promise(() => db.close())
  )

/** A fresh in-memory database of this process alone (tests). */
export const layerInMemory = () =>
  Layer.unwrap(
    Effect.map(open(undefined), (db) => {
      const session = new PgliteSession(db)
      return PgClient.layer({ ...connection, stream: () => new PgliteDuplex(session) })
    })
  )

/**
 * The database in `dataDir`. Owned when the directory is free: opened here, and
 * with `share` served on its socket for the CLIs. When another process owns it:
 * a sharing role refuses (one API per directory); a joining role connects to the
 * owner's socket, waiting while the owner starts, and refuses when the owner
 * does not share (another CLI).
 */
export const layerDataDir = (dataDir: string, role: Role, options: { readonly reserve?: number } = {}) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const ownership = yield* DataDirOwner.acquire(dataDir, role.tool).pipe(
        Effect.catchTag("DataDirOwned", (owned) =>
          role.share || owned.tool !== DataDirOwner.SHARING_TOOL ? Effect.fail(owned) : Effect.succeed(owned)
        )
      )
      if (ownership instanceof DataDirOwner.DataDirOwned) {
        const socket = ownership.socket ?? (yield* DataDirOwner.sharedSocket(dataDir, JOIN_WAIT_MS))
        if (socket === undefined) return yield* ownership
        yield* Effect.logDebug(`joined the embedded database of pid ${ownership.pid} on ${socket}`)
        return PgClient.layer({ ...connection, path: socket })
      }
      const db = yield* open(ownership.dataDir)
      // A new database is unpacked with files open to every user: closed before anything is written.
      yield* DataDirOwner.makePrivate(ownership.dataDir)
      const session = new PgliteSession(db)
      // Writes stop before the disk is full (a full disk stops PGlite for good), and resume when space is back.
      const disk = yield* DiskGuard.watch(
        ownership.dataDir,
        options.reserve ?? DiskGuard.DEFAULT_RESERVE,
        (state) => session.setReadOnly(state.low),
        role.share ? "Warn" : "Debug"
      )
      const health = StoreHealth.of({
        stalled: () => {
          const busy = session.busyFor()
          return busy !== undefined && busy > STALLED_AFTER_MS ? busy : undefined
        },
        disk: disk.state,
        armDiskGuard: disk.arm
      })
      if (role.share) {
        const path = SocketServer.socketPathFor(ownership.dataDir)
        yield* SocketServer.serve(session, path).pipe(
          Effect.mapError(
            (error) => new StoreError({ operation: "share", detail: `cannot serve the database on ${path}: ${error.message}` })
          )
        )
        yield* ownership.announce(path)
      }
      return Layer.merge(PgClient.layer({ ...connection, stream: () => new PgliteDuplex(session) }), Layer.succeed(StoreHealth, health))
    })
  )

export { DataDirOwned, DataDirUnusable } from "./embedded/DataDirOwner.ts"
