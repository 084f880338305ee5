/** The API and the CLIs as real processes, the way users start them. */
import { type ChildProcess, spawn } from "node:child_process"
import { cpSync, existsSync, lstatSync } from "node:fs"
import { createServer } from "node:net"
import { resolve } from "node:path"

export const ROOT = resolve(import.meta.dirname, "..", "..", "..")
export const API_MAIN = resolve(ROOT, "apps/api/dist/main.js")
export const IMPORT_BIN = resolve(ROOT, "apps/import/bin/productdir-import.js")
export const RECONCILE_BIN = resolve(ROOT, "apps/reconcile/bin/productdir-reconcile.js")
export const AGENTS_BIN = resolve(ROOT, "apps/agents/bin/productdir-agents.js")
export const PUBLISHERS_BIN = resolve(ROOT, "apps/publishers/bin/productdir-publishers.js")

/** The environment for a child: the test's own, without store settings unless given. */
export const childEnv = (env: Record<string, string>): NodeJS.ProcessEnv => {
  const base: NodeJS.ProcessEnv = { ...process.env, ...env }
  for (const name of ["DATABASE_URL", "STORE", "SEED", "DATA_DIR"]) if (!(name in env)) delete base[name]
  return base
}

export interface Started {
  readonly child: ChildProcess
  /** Resolves with the base URL the server announces; rejects if it exits first. */
  readonly url: Promise<string>
  readonly output: () => string
  readonly exited: Promise<number | null>
}

/** Starts a command in its own process group and watches for the URL it announces. */
export const start = (command: string, args: ReadonlyArray<string>, env: Record<string, string>): Started => {
  const child = spawn(command, args, { cwd: ROOT, env: childEnv({ PORT: "0", ...env }), stdio: ["ignore", "pipe", "pipe"], detached: true })
  let output = ""
  // "close", not "exit": it comes after the child's output has all been read, so output() is complete.
  const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)))
  const url = new Promise<string>((resolveUrl, reject) => {
    const onData = (chunk: string) => {
      output += chunk
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output)
      if (match?.[1]) resolveUrl(match[1])
    }
    child.stdout!.setEncoding("utf8").on("data", onData)
    child.stderr!.setEncoding("utf8").on("data", onData)
    void exited.then((code) => reject(new Error(`${command} exited with ${code} before listening:\n${output}`)))
  })
  url.catch(() => undefined)
  return { child, url, output: () => output, exited }
}

/**
 * The API as a real process. A DATA_DIR that does not exist yet starts as a copy of the migrated
 * directory globalSetup.ts made (seconds faster than making a database), unless `fresh` asks for
 * the first start on an empty directory itself.
 */
export const startApi = (env: Record<string, string>, options: { readonly fresh?: boolean } = {}) => {
  const template = process.env.PRODUCTDIR_TEST_DATA_TEMPLATE
  const dataDir = env.DATA_DIR
  if (options.fresh !== true && template !== undefined && dataDir !== undefined && !existsSync(dataDir)) {
    // Not the socket the template's API served its database on: a socket is not a file to copy.
    cpSync(template, dataDir, { recursive: true, filter: (source) => !lstatSync(source).isSocket() })
  }
  return start(process.execPath, [API_MAIN], env)
}

/** A port no one listens on now (for a process that does not announce the one it got). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Signals the whole process group, as a terminal or a service manager does. */
export const signalGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
  try {
    process.kill(-child.pid!, signal)
  } catch {
    // already gone
  }
}

export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

/** Runs a CLI to its end. */
export const run = (bin: string, args: ReadonlyArray<string>, env: Record<string, string>): Promise<Run> =>
  new Promise((done) => {
    const started = Date.now()
    const child = spawn(process.execPath, [bin, ...args], { cwd: ROOT, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("close", (code) => done({ code, stdout, stderr, ms: Date.now() - started }))
  })

export const json = async <T>(url: string, init?: RequestInit): Promise<{ status: number; body: T; headers: Headers }> => {
  const response = await fetch(url, init)
  const text = await response.text()
  return { status: response.status, body: (text.length > 0 ? JSON.parse(text) : undefined) as T, headers: response.headers }
}

export const vote = (base: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  json<{ status: string; counted_as: "agent" | "address"; trust: { trust_up: number; trust_down: number } }>(`${base}/vote`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })
