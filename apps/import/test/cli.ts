/** Runs the real CLI as a process, against PGlite in a data directory or a fresh PostgreSQL database. */
import { Effect, Exit, Scope } from "effect"
import { freshDatabaseUrl } from "@productdir/postgres/testing"
import { type ChildProcess, spawn } from "node:child_process"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const BIN = resolve(import.meta.dirname, "..", "bin", "productdir-import.js")

export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface Target {
  readonly name: string
  readonly env: Record<string, string>
  readonly dispose: () => Promise<void>
}

export const spawnCli = (args: ReadonlyArray<string>, env: Record<string, string>, stdin?: string): { child: ChildProcess; done: Promise<Run> } => {
  const base: NodeJS.ProcessEnv = { ...process.env, ...env }
  if (!("DATABASE_URL" in env)) delete base.DATABASE_URL
  delete base.STORE
  const child = spawn(process.execPath, [BIN, ...args], { env: base, stdio: ["pipe", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (d) => (stdout += d))
  child.stderr!.on("data", (d) => (stderr += d))
  if (stdin !== undefined) child.stdin!.end(stdin)
  else child.stdin!.end()
  const done = new Promise<Run>((resolveRun) => child.on("close", (code) => resolveRun({ code, stdout, stderr })))
  return { child, done }
}

export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>, stdin?: string) => spawnCli(args, env, stdin).done

export const workDir = () => mkdtempSync(join(tmpdir(), "productdir-import-test-"))

let template: string | undefined

/** An initialised PGlite data directory, copied per test (creating one costs seconds). */
const pgliteTarget = async (): Promise<Target> => {
  if (template === undefined) {
    template = join(workDir(), "template")
    const init = await runCli(["-"], { DATA_DIR: template }, "")
    if (init.code !== 0) throw new Error(`could not initialise PGlite: ${init.stderr}`)
  }
  const dir = join(workDir(), "data")
  cpSync(template, dir, { recursive: true })
  return { name: "pglite", env: { DATA_DIR: dir }, dispose: async () => rmSync(dir, { recursive: true, force: true }) }
}

const postgresTarget = async (server: string): Promise<Target> => {
  const scope = await Effect.runPromise(Scope.make())
  const { url } = await Effect.runPromise(Scope.provide(freshDatabaseUrl(server), scope))
  return { name: "postgres", env: { DATABASE_URL: url }, dispose: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** The stores every CLI test runs against: PGlite always, the server when DATABASE_URL is set. */
export const targets = (): ReadonlyArray<{ readonly name: string; readonly make: () => Promise<Target> }> => {
  const server = process.env.DATABASE_URL
  return [
    { name: "pglite", make: pgliteTarget },
    ...(server ? [{ name: "postgres", make: () => postgresTarget(server) }] : [])
  ]
}
