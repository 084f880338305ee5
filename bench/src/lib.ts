/** Shared pieces of the benchmarks: processes, databases, statistics, report files. */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import pg from "pg"

export const ROOT = resolve(import.meta.dirname, "..", "..")

export const SERVER_URL = process.env.BENCH_POSTGRES ?? "postgres://postgres@127.0.0.1:5432/postgres"

export const databaseUrl = (name: string) => {
  const url = new URL(SERVER_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/** Creates the database unless it exists; `fresh` drops it first. */
export const ensureDatabase = async (name: string, fresh: boolean) => {
  const admin = new pg.Client({ connectionString: SERVER_URL })
  await admin.connect()
  try {
    if (fresh) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`)
  } finally {
    await admin.end()
  }
  return databaseUrl(name)
}

export const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Spawns a server process with its output discarded, and waits until `readyUrl` answers. */
/** A server process (`node args…`, or a command of its own: `[command, …args]` when `command` is given), once it is ready. */
export const startServer = async (
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  readyUrl: string,
  command: string = process.execPath,
  waitMs = 30_000
): Promise<ChildProcess> => {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit"] })
  for (let i = 0; i < waitMs / 100; i++) {
    try {
      if ((await fetch(readyUrl, { signal: AbortSignal.timeout(2_000) })).ok) return child
    } catch {
      // not up yet
    }
    if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited with ${child.exitCode}`)
    await sleep(100)
  }
  child.kill("SIGKILL")
  throw new Error(`${args.join(" ")} did not become ready at ${readyUrl}`)
}

export const stopServer = (child: ChildProcess) =>
  new Promise<void>((done) => {
    if (child.exitCode !== null) return done()
    child.on("exit", () => done())
    child.kill("SIGTERM")
  })

/** Replaces the section `## <title>` of docs/benchmarks.md (or appends it). */
export const writeSection = (title: string, body: string) => {
  const path = resolve(ROOT, "docs", "benchmarks.md")
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch {
    text =
      "# Benchmarks\n\nEach benchmark measures productdir and its baseline side by side in one run, on the same machine and database. These machines are noisy: compare the ratios, not the absolute figures.\n"
  }
  const heading = `## ${title}`
  const start = text.indexOf(heading)
  const section = `${heading}\n\n${body.trim()}\n`
  if (start === -1) text = `${text.trimEnd()}\n\n${section}`
  else {
    const next = text.indexOf("\n## ", start + heading.length)
    text = `${text.slice(0, start)}${section}${next === -1 ? "" : text.slice(next)}`
  }
  writeFileSync(path, text)
}
