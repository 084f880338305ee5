import { describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "..", "..", "..")

/** Starts a real command (in its own process group) and resolves with the base URL it announces. */
const start = (command: string, args: ReadonlyArray<string>, dataDir: string) => {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", DATA_DIR: dataDir }
  delete env.DATABASE_URL
  delete env.STORE
  delete env.SEED
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true })
  let output = ""
  const url = new Promise<string>((resolveUrl, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output)
      if (match?.[1]) resolveUrl(match[1])
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.on("exit", (code) => reject(new Error(`${command} exited with ${code} before listening:\n${output}`)))
  })
  return { child, url, output: () => output }
}

const exitOf = (child: ChildProcess) => new Promise<number | null>((done) => child.on("exit", (code) => done(code)))

/** Signals the whole process group, as a terminal or a service manager does. */
const signalGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
  try {
    process.kill(-child.pid!, signal)
  } catch {
    // already gone
  }
}

describe("starting the service", () => {
  it("`npm start` builds and serves the sample catalog on the embedded store", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "productdir-start-"))
    const server = start("npm", ["start", "--silent"], dataDir)
    try {
      const base = await server.url
      const page = (await (await fetch(`${base}/products?limit=1`)).json()) as { items: Array<{ id: string; name: string }> }
      expect(page.items).toHaveLength(1)
      expect(page.items[0]!.name.length).toBeGreaterThan(0)
      expect(server.output()).toContain(`${base}/docs`)
    } finally {
      signalGroup(server.child, "SIGKILL")
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)

  it("the server stops cleanly on SIGTERM (exit 0) and keeps its data for the next start", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "productdir-start-"))
    try {
      const first = start(process.execPath, ["apps/api/dist/main.js"], dataDir)
      const base = await first.url
      const page = (await (await fetch(`${base}/products?limit=1`)).json()) as { items: Array<{ id: string }> }
      const id = page.items[0]!.id
      const vote = await fetch(`${base}/vote`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ entity_id: id })
      })
      expect(vote.status).toBe(201)
      const exited = exitOf(first.child)
      first.child.kill("SIGTERM")
      expect(await exited).toBe(0)

      const second = start(process.execPath, ["apps/api/dist/main.js"], dataDir)
      const again = await second.url
      const repeat = await fetch(`${again}/vote`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ entity_id: id })
      })
      expect(((await repeat.json()) as { status: string }).status).toBe("unchanged")
      expect(second.output()).not.toContain("seeded the sample catalog")
      const exitedAgain = exitOf(second.child)
      second.child.kill("SIGINT")
      expect(await exitedAgain).toBe(0)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)
})
