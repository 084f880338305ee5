/**
 * Test support: throw-away stores for tests that run the real apps as
 * processes. A PostgreSQL database on the server of DATABASE_URL (dropped
 * afterwards), or a PGlite data directory copied from a migrated template.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Layer, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { type ChildProcess, spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve as resolvePath } from "node:path"
import type { Stores } from "@productdir/domain"
import { socketPathFor } from "./embedded/SocketServer.ts"
import { KNOWN_MIGRATIONS } from "./migrations/index.ts"
import { shippedSql } from "./sqlFile.ts"
import { layerPglite, layerPostgres } from "./StoreLayer.ts"

const withAdmin = <A, E>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  SqlClient.SqlClient.use(f).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))

/** The URL of a new empty database on the server of `serverUrl`, dropped when the scope closes. */
export const freshDatabaseUrl = (serverUrl: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const name = `productdir_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
      yield* withAdmin(serverUrl, (sql) => sql.unsafe(`CREATE DATABASE "${name}"`))
      const url = new URL(serverUrl)
      url.pathname = `/${name}`
      return { name, url: url.toString() }
    }),
    ({ name }) => withAdmin(serverUrl, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).pipe(Effect.ignore)
  )

/** A store a test hands to an app process through its environment, and can also reach itself. */
export interface TestTarget {
  readonly name: "pglite" | "postgres"
  /** DATA_DIR or DATABASE_URL, for the app's process. */
  readonly env: Record<string, string>
  /** Runs an effect against the same store, in this process (for PGlite: while no app has it open). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Stores | SqlClient.SqlClient>) => Promise<A>
  readonly dispose: () => Promise<void>
}

/**
 * The migrated store every PGlite target starts from, one per set of migrations (and their texts), shared by every test process
 * and kept between runs. A store per test process (about 100 MB each), left in the system's temporary directory,
 * would pile up by the dozen with every CI run. Migrations only add (a store upgrades by the ids it has not run),
 * so one made by an earlier run of the same set is this one. Built aside and renamed into place: another process
 * finds it whole, or builds its own and keeps whichever was renamed first.
 */
const templateOf = async (): Promise<string> => {
  // By the migrations' text, not only their ids: a migration not yet released changes while it is written, and a
  // template made from an earlier text of it would not be this one.
  const texts = KNOWN_MIGRATIONS.map((id) => {
    try {
      return `${id}\n${shippedSql(`migrations/${id}.sql`)}`
    } catch {
      return id // a migration in TypeScript (0015, 0017): released, frozen
    }
  })
  const key = createHash("sha256").update(texts.join("\n")).digest("hex").slice(0, 16)
  const folder = join(tmpdir(), `productdir-template-${key}`)
  const dir = join(folder, "data")
  if (existsSync(dir)) return dir
  const building = mkdtempSync(join(tmpdir(), "productdir-template-building-"))
  try {
    await Effect.runPromise(Effect.scoped(Layer.build(layerPglite({ dataDir: join(building, "data") }))))
    try {
      renameSync(building, folder)
    } catch {
      // Another process renamed its own first: that one is the template.
    }
  } finally {
    rmSync(building, { recursive: true, force: true })
  }
  return dir
}

let template: Promise<string> | undefined

const pgliteTarget = async (): Promise<TestTarget> => {
  template ??= templateOf()
  const folder = mkdtempSync(join(tmpdir(), "productdir-test-"))
  const dir = join(folder, "data")
  cpSync(await template, dir, { recursive: true })
  return {
    name: "pglite",
    env: { DATA_DIR: dir },
    run: (effect) => Effect.runPromise(Effect.provide(effect, layerPglite({ dataDir: dir }))),
    dispose: async () => rmSync(folder, { recursive: true, force: true })
  }
}

const postgresTarget = async (server: string): Promise<TestTarget> => {
  const scope = await Effect.runPromise(Scope.make())
  const { url } = await Effect.runPromise(Scope.provide(freshDatabaseUrl(server), scope))
  return {
    name: "postgres",
    env: { DATABASE_URL: url },
    run: (effect) => Effect.runPromise(Effect.provide(effect, layerPostgres(Redacted.make(url)))),
    dispose: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/**
 * The stores a test run covers: embedded PGlite, and the PostgreSQL server of DATABASE_URL when it
 * is set. PRODUCTDIR_TEST_STORES (a comma list of `pglite`, `postgres`) narrows that: CI's second
 * pass, against the server, covers the server alone, the first (no server) having covered PGlite.
 */
export const testStores = (): { readonly pglite: boolean; readonly server: string | undefined } => {
  const only = process.env.PRODUCTDIR_TEST_STORES?.split(",").map((s) => s.trim())
  const url = process.env.DATABASE_URL
  return {
    pglite: only === undefined || only.includes("pglite"),
    server: url !== undefined && url !== "" && (only === undefined || only.includes("postgres")) ? url : undefined
  }
}

/**
 * The stores this run leaves out, each with why: a test reports them as skipped variants (testkit's
 * `reportLeftOut`), so a variant that could not run is seen, not silently absent.
 */
export const storesLeftOut = (): ReadonlyArray<{ readonly name: "pglite" | "postgres"; readonly reason: string }> => {
  const { pglite, server } = testStores()
  const only = process.env.PRODUCTDIR_TEST_STORES
  const narrowed = `PRODUCTDIR_TEST_STORES=${only} leaves it out`
  const url = process.env.DATABASE_URL
  return [
    ...(pglite ? [] : [{ name: "pglite" as const, reason: narrowed }]),
    ...(server !== undefined
      ? []
      : [
          {
            name: "postgres" as const,
            reason:
              url === undefined || url === ""
                ? "no PostgreSQL server: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres) to run it"
                : narrowed
          }
        ])
  ]
}

/** The stores of `testStores`, as targets for app processes. */
export const testTargets = (): ReadonlyArray<{ readonly name: "pglite" | "postgres"; readonly make: () => Promise<TestTarget> }> => {
  const { pglite, server } = testStores()
  return [
    ...(pglite ? [{ name: "pglite" as const, make: pgliteTarget }] : []),
    ...(server !== undefined ? [{ name: "postgres" as const, make: () => postgresTarget(server) }] : [])
  ]
}

export interface AppRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Spawns an app's launcher as a real process, with the target's environment
 * (and no other store variables leaking in from the test's own environment).
 */
export const spawnApp = (bin: string, args: ReadonlyArray<string>, env: Record<string, string>, stdin?: string) => {
  const base: NodeJS.ProcessEnv = { ...process.env, ...env }
  if (!("DATABASE_URL" in env)) delete base.DATABASE_URL
  if (!("STORE" in env)) delete base.STORE
  const child = spawn(process.execPath, [bin, ...args], { env: base, stdio: ["pipe", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  // Decoded as a stream: a character whose bytes span two chunks ("€" is three) stays one character.
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d))
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d))
  child.stdin!.end(stdin ?? "")
  const done = new Promise<AppRun>((resolveRun) => child.on("close", (code) => resolveRun({ code, stdout, stderr })))
  return { child, done }
}

/** Waits until `child` writes `text` to stdout or stderr (or fails after `ms`). */
/**
 * Waits until `child` has written `text` (to stdout or stderr, across chunks), and fails as soon as it exits without
 * having written it, with what it wrote. No deadline of its own: the test's timeout is the one, so a busy machine
 * waits as long as the test may; `ms` sets one where a test must not wait that long.
 */
export const waitForOutput = (child: ChildProcess, text: string, ms?: number) =>
  new Promise<void>((resolveWait, reject) => {
    let seen = ""
    const timer = ms === undefined ? undefined : setTimeout(() => finish(new Error(`no "${text}" within ${ms} ms; it wrote:\n${seen}`)), ms)
    const onData = (d: string) => {
      seen += d
      if (seen.includes(text)) finish()
    }
    const onClose = (code: number | null) => finish(new Error(`it exited (${code}) without writing "${text}"; it wrote:\n${seen}`))
    const finish = (error?: Error) => {
      if (timer !== undefined) clearTimeout(timer)
      child.stdout!.off("data", onData)
      child.stderr!.off("data", onData)
      child.off("close", onClose)
      if (error === undefined) resolveWait()
      else reject(error)
    }
    child.stdout!.setEncoding("utf8").on("data", onData)
    child.stderr!.setEncoding("utf8").on("data", onData)
    child.once("close", onClose)
  })

/** The Unix socket on which the API serves the embedded database of `dataDir` to other local processes. */
export const embeddedSocketPath = (dataDir: string) => socketPathFor(resolvePath(dataDir))
