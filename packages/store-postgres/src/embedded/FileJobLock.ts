/**
 * JobLock for the embedded store: an OS file lock per job name in the data
 * directory. The processes that use one embedded database share one backend
 * session, so a PostgreSQL advisory lock would be granted to all of them;
 * a file lock, like the directory's owner lock, is held per process and
 * dropped by the kernel when the holder dies.
 */
import { Effect, Layer } from "effect"
import { DatabaseSync } from "node:sqlite"
import { join, resolve } from "node:path"
import { JobLock, type LockOutcome, StoreError } from "@productdir/domain"
import { createPrivateFile } from "./DataDirOwner.ts"

const SQLITE_BUSY = 5
/** SQLITE_FULL: the disk has no room for the lock file. */
const SQLITE_FULL = 13
const POLL = "200 millis"

/** The lock, undefined when another process holds it, or why the lock file cannot be used. */
const tryLock = (path: string): Effect.Effect<DatabaseSync | undefined, StoreError> =>
  Effect.try({
    try: () => {
      createPrivateFile(path)
      const db = new DatabaseSync(path, { timeout: 0 })
      try {
        db.exec("PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE")
        return db
      } catch (error) {
        db.close()
        if ((error as { errcode?: number }).errcode === SQLITE_BUSY) return undefined
        throw error
      }
    },
    catch: (error) => {
      const full = (error as { errcode?: number }).errcode === SQLITE_FULL || (error as { code?: string }).code === "ENOSPC"
      return new StoreError({
        operation: "lock",
        detail: `cannot use the job lock file ${path}: ${error instanceof Error ? error.message : String(error)}`,
        fault: full ? "disk-full" : "unavailable",
        cause: error
      })
    }
  })

export const layer = (dataDir: string) =>
  Layer.succeed(
    JobLock,
    JobLock.of({
      withLock: <A, E, R>(name: string, options: { readonly wait: boolean }, effect: Effect.Effect<A, E, R>) => {
        const path = join(resolve(dataDir), `productdir-job-${name.replace(/[^A-Za-z0-9_-]/g, "_")}.lock`)
        const acquire: Effect.Effect<DatabaseSync | undefined, StoreError> = Effect.flatMap(
          Effect.suspend(() => tryLock(path)),
          (held) => (held !== undefined || !options.wait ? Effect.succeed(held) : Effect.andThen(Effect.sleep(POLL), acquire))
        )
        return Effect.acquireUseRelease(
          acquire,
          (held): Effect.Effect<LockOutcome<A>, E | StoreError, R> =>
            held === undefined ? Effect.succeed({ _tag: "Busy" }) : Effect.map(effect, (value) => ({ _tag: "Ran", value })),
          (held) => Effect.sync(() => held?.close())
        )
      }
    })
  )
