/**
 * One owner process per embedded data directory (docs/operations.md, "The embedded
 * database"). PGlite itself lets a second process open the same directory, and two
 * writers corrupt it; so the owner holds an OS lock that the kernel drops when the
 * process ends, however it ends (exit, crash, SIGKILL): a lock is never stale and
 * needs no takeover protocol. The lock is SQLite's exclusive file lock, through
 * Node's built-in `node:sqlite`, because Node has no flock of its own.
 *
 * Beside the lock, `productdir-owner.json` tells other processes who the owner is
 * and, once it is ready, where it serves the database to local clients.
 *
 * The directory holds the ledger and the agents' key hashes, so it is the owner's
 * alone, as PostgreSQL's own data directory is: the directory 0700, its files
 * 0600. PostgreSQL creates its files 0600; PGlite unpacks a new database with
 * 0666 files, so the owner closes the directory when it takes it and again once
 * PGlite has opened it (`makePrivate`), which also mends what an earlier
 * version left open.
 */
import { Effect, Schema, type Scope } from "effect"
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { DatabaseSync } from "node:sqlite"
import { dirname, join, resolve } from "node:path"

const LOCK_FILE = "productdir-owner.lock"
const OWNER_FILE = "productdir-owner.json"
/** SQLITE_BUSY: another process holds the lock. */
const SQLITE_BUSY = 5
/** SQLITE_FULL: no room on the disk. */
const SQLITE_FULL = 13
/** The permission bits of group and others: none is left on anything in the directory. */
const SHARED_BITS = 0o077

/** The disk holding the directory is full: the lock file, or the owner file, could not be written. */
const isDiskFull = (error: unknown): boolean =>
  (error as { errcode?: number }).errcode === SQLITE_FULL || (error as { code?: string }).code === "ENOSPC"

/** Takes group and other permissions off the directory and everything in it (symbolic links aside). */
const closeToOthers = (dir: string): void => {
  chmodSync(dir, lstatSync(dir).mode & 0o7700)
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const path = join(dir, entry)
    const stat = lstatSync(path, { throwIfNoEntry: false })
    if (stat === undefined || stat.isSymbolicLink() || (stat.mode & SHARED_BITS) === 0) continue
    chmodSync(path, stat.mode & 0o7700)
  }
}

/** Creates `path` for its owner alone, if it is not there yet (SQLite would create its files 0644). */
export const createPrivateFile = (path: string): void => {
  const fd = openSync(path, "a", 0o600)
  try {
    fchmodSync(fd, 0o600)
  } finally {
    closeSync(fd)
  }
}

/** Leaves nothing in `dataDir` readable or writable by other users. */
export const makePrivate = (dataDir: string): Effect.Effect<void, DataDirUnusable> =>
  Effect.try({
    try: () => closeToOthers(resolve(dataDir)),
    catch: (error) => new DataDirUnusable({ dataDir: resolve(dataDir), detail: `cannot make it private to its owner: ${String(error)}` })
  })

export interface OwnerInfo {
  readonly pid: number
  /** What the owner is, for the message another process prints: "productdir API", "productdir-import". */
  readonly tool: string
  /** Where the owner serves the database to local clients; null while starting, or when it does not share. */
  readonly socket: string | null
  readonly since: string
}

const OwnerInfoJson = Schema.fromJsonString(
  Schema.Struct({
    pid: Schema.Int,
    tool: Schema.String,
    socket: Schema.NullOr(Schema.String),
    since: Schema.String
  })
)
const decodeOwner = Schema.decodeUnknownOption(OwnerInfoJson)

/** The data directory is held by another live process. */
export class DataDirOwned extends Schema.TaggedError<DataDirOwned>()("DataDirOwned", {
  dataDir: Schema.String,
  pid: Schema.NullOr(Schema.Int),
  tool: Schema.String,
  socket: Schema.NullOr(Schema.String)
}) {
  override get message() {
    return `the embedded database in ${this.dataDir} is in use by ${this.tool}${this.pid === null ? "" : ` (pid ${this.pid})`}`
  }
}

/** What a full disk is called in messages: the one thing to do about it is free space there. */
export const DISK_FULL = "the disk holding DATA_DIR is full"

/** The lock file could not be opened at all (permissions, a read-only disk, a full disk). */
export class DataDirUnusable extends Schema.TaggedError<DataDirUnusable>()("DataDirUnusable", {
  dataDir: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `cannot use the data directory ${this.dataDir}: ${this.detail}`
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive, owned by another user.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Who owns `dataDir`, as its owner file says; undefined when it says nothing trustworthy. */
export const readOwner = (dataDir: string): OwnerInfo | undefined => {
  try {
    const owner = decodeOwner(readFileSync(join(dataDir, OWNER_FILE), "utf8"))
    return owner._tag === "Some" && isAlive(owner.value.pid) ? owner.value : undefined
  } catch {
    return undefined
  }
}

const writeOwner = (dataDir: string, info: OwnerInfo) => {
  // Written whole, then renamed: a reader never sees half a file.
  const path = join(dataDir, OWNER_FILE)
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, JSON.stringify(info), { mode: 0o600 })
  renameSync(temporary, path)
}

export interface Ownership {
  readonly dataDir: string
  /** Announces where this owner serves the database (once the socket listens). */
  readonly announce: (socket: string) => Effect.Effect<void>
}

/**
 * `dir` and its missing parents, made one level at a time (private to their owner). Node's recursive mkdir
 * retries without end where a parent refuses every new entry with ENOENT (a DATA_DIR under /proc): the import
 * spun at full CPU, deaf to SIGTERM, where one level at a time fails with that error.
 */
const makeFolders = (dir: string): void => {
  const missing: Array<string> = []
  for (let at = dir; !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.push(at)
  for (const folder of missing.reverse()) mkdirSync(folder, { mode: 0o700 })
}

/**
 * Tries to take the lock on `dataDir` (created when missing), as `tool`. Fails at
 * once with `DataDirOwned` when another process holds it; the lock is released with
 * the scope. `OwnerInfo` of the holder is read for the message: the owner writes it
 * right after taking the lock, so a contender that comes in between waits for it
 * briefly (well under a second).
 */
export const acquire = (dataDir: string, tool: string): Effect.Effect<Ownership, DataDirOwned | DataDirUnusable, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const dir = resolve(dataDir)
      const lock = yield* Effect.try({
        try: () => {
          makeFolders(dir)
          createPrivateFile(join(dir, LOCK_FILE))
          const db = new DatabaseSync(join(dir, LOCK_FILE), { timeout: 0 })
          try {
            db.exec("PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE")
            return db
          } catch (error) {
            db.close()
            throw error
          }
        },
        catch: (error) => error as Error & { errcode?: number }
      }).pipe(
        Effect.catch(
          (error): Effect.Effect<never, DataDirOwned | DataDirUnusable> =>
            error.errcode === SQLITE_BUSY
              ? Effect.flatMap(ownerOf(dir), (owner) =>
                  Effect.fail(
                    new DataDirOwned({
                      dataDir: dir,
                      pid: owner?.pid ?? null,
                      tool: owner?.tool ?? "another process",
                      socket: owner?.socket ?? null
                    })
                  )
                )
              : Effect.fail(new DataDirUnusable({ dataDir: dir, detail: isDiskFull(error) ? DISK_FULL : error.message }))
        )
      )
      const since = new Date().toISOString()
      yield* Effect.try({
        try: () => {
          closeToOthers(dir)
          writeOwner(dir, { pid: process.pid, tool, socket: null, since })
        },
        catch: (error) => {
          lock.close()
          return new DataDirUnusable({ dataDir: dir, detail: isDiskFull(error) ? DISK_FULL : String(error) })
        }
      })
      return { dir, lock, since }
    }),
    ({ dir, lock }) =>
      Effect.sync(() => {
        // The owner file goes first: once the lock is free a new owner may write its own.
        rmSync(join(dir, OWNER_FILE), { force: true })
        lock.close()
      })
  ).pipe(
    Effect.map(({ dir, since }) => ({
      dataDir: dir,
      // A failed write leaves the owner file saying "starting": the clients waiting for it give up in time.
      announce: (socket: string) => Effect.ignore(Effect.try(() => writeOwner(dir, { pid: process.pid, tool, socket, since })))
    }))
  )

/** The owner's info, waiting up to a second for a new owner to write it. */
const ownerOf = (dir: string) =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 20; attempt++) {
      const owner = readOwner(dir)
      if (owner !== undefined) return owner
      yield* Effect.sleep("50 millis")
    }
    return undefined
  })

/**
 * The socket of a running owner that shares its database, waiting while the owner
 * starts (opening and migrating takes a few seconds). Undefined when the owner does
 * not share (a CLI), or has gone.
 */
export const sharedSocket = (dataDir: string, waitFor: number) =>
  Effect.gen(function* () {
    const dir = resolve(dataDir)
    const deadline = Date.now() + waitFor
    for (;;) {
      const owner = readOwner(dir)
      if (owner?.socket != null && existsSync(owner.socket)) return owner.socket
      // An owner that will never share (a CLI) or no owner at all: nothing to wait for.
      if (owner !== undefined && owner.tool !== SHARING_TOOL) return undefined
      if (Date.now() >= deadline) return undefined
      yield* Effect.sleep("100 millis")
    }
  })

/** The one kind of owner that serves its database to local clients. */
export const SHARING_TOOL = "productdir API"
