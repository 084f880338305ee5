/**
 * The embedded store's files, as an operator and as another local user see them:
 * nothing under DATA_DIR is readable or writable by anyone but its owner (the rule
 * PostgreSQL has for its own data directory), and a full disk is said in one line
 * by every program, never a stack trace, never a word about DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { sampleRecords } from "@productdir/fixtures/sample"
import { AGENTS_BIN, API_MAIN, IMPORT_BIN, RECONCILE_BIN, ROOT, run, type Run, signalGroup, startApi, vote } from "./processes.ts"

const SAMPLE = resolve(ROOT, "packages/fixtures/data/sample-catalog.ndjson")

/** Every path under `dir` (itself included) whose mode lets group or others in. */
const openToOthers = (dir: string): Array<string> =>
  [".", ...readdirSync(dir, { recursive: true, encoding: "utf8" })]
    .map((entry) => join(dir, entry))
    .filter((path) => {
      const stat = lstatSync(path, { throwIfNoEntry: false })
      return stat !== undefined && !stat.isSymbolicLink() && (stat.mode & 0o077) !== 0
    })
    .map((path) => `${(lstatSync(path).mode & 0o777).toString(8)} ${path}`)

describe("the embedded store's files", { timeout: 240_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "productdir-datadir-"))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it("a new data directory, its database, and what the API and the CLIs write later: private to their owner", async () => {
    const dataDir = join(root, "fresh")
    const api = startApi({ DATA_DIR: dataDir, SEED: "sample" }, { fresh: true })
    try {
      const base = await api.url
      expect((await vote(base, { entity_id: sampleRecords()[0]!.id, direction: "down", reason: "private files" })).status).toBe(201)
      const imported = await run(IMPORT_BIN, [SAMPLE], { DATA_DIR: dataDir })
      expect(imported.code).toBe(0)
      expect(openToOthers(dataDir)).toEqual([])
    } finally {
      signalGroup(api.child, "SIGTERM")
      await api.exited
    }
    expect(openToOthers(dataDir)).toEqual([])
  })

  it("a data directory an earlier version left open to everyone is closed when it is next opened", async () => {
    const dataDir = join(root, "loose")
    expect((await run(IMPORT_BIN, [SAMPLE], { DATA_DIR: dataDir })).code).toBe(0)
    // As an earlier version left it: every directory 0777, every file 0666.
    for (const entry of [".", ...readdirSync(dataDir, { recursive: true, encoding: "utf8" })]) {
      const path = join(dataDir, entry)
      const stat = lstatSync(path)
      if (!stat.isSymbolicLink() && !stat.isSocket()) chmodSync(path, stat.isDirectory() ? 0o777 : 0o666)
    }
    expect(openToOthers(dataDir).length).toBeGreaterThan(100)
    const check = await run(RECONCILE_BIN, ["--check"], { DATA_DIR: dataDir })
    expect(check.code).toBe(0)
    expect(openToOthers(dataDir)).toEqual([])
  })
})

const isRoot = process.getuid?.() === 0

/**
 * Runs a program with DATA_DIR on a disk of its own (a tmpfs in a mount namespace of the child's,
 * gone when it ends) holding a copy of `source`, filled to `freeKb` kilobytes left.
 */
const onFullDisk = (source: string, freeKb: number, bin: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<Run>((done) => {
    const mount = mkdtempSync(join(tmpdir(), "productdir-full-"))
    const script = [
      "set -e",
      'mount -t tmpfs -o size=96m tmpfs "$MOUNT"',
      'cp -a "$SOURCE" "$MOUNT/data"',
      'avail=$(df --output=avail -k "$MOUNT" | tail -n 1)',
      'dd if=/dev/zero of="$MOUNT/fill" bs=1K count=$((avail - FREE_KB)) 2>/dev/null || true',
      'export DATA_DIR="$MOUNT/data"',
      "set +e",
      'exec "$@"'
    ].join("\n")
    const started = Date.now()
    const child = spawn("unshare", [...(isRoot ? ["-m"] : ["-rm"]), "sh", "-c", script, "sh", process.execPath, bin, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env, MOUNT: mount, SOURCE: source, FREE_KB: String(freeKb), DATABASE_URL: "", STORE: "pglite" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("close", (code) => {
      rmSync(mount, { recursive: true, force: true })
      done({ code, stdout, stderr, ms: Date.now() - started })
    })
  })

describe("a full disk under DATA_DIR", { timeout: 240_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "productdir-diskfull-"))
  const source = join(root, "data")
  const many = join(root, "many.ndjson")

  beforeAll(async () => {
    expect((await run(IMPORT_BIN, [SAMPLE], { DATA_DIR: source })).code).toBe(0)
    // New products, enough to need more room than the disk has left.
    const records = sampleRecords()
    mkdirSync(root, { recursive: true })
    writeFileSync(
      many,
      Array.from({ length: 3_000 }, (_, i) => {
        const { id: _id, ...record } = records[i % records.length]!
        return JSON.stringify({ ...record, name: `${record.name} Edition ${i}` })
      }).join("\n")
    )
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  const saysDiskFull = (result: Run) => {
    const lines = result.stderr.trim().split("\n")
    expect(lines, result.stderr).toHaveLength(1)
    expect(lines[0]).toMatch(/the disk holding DATA_DIR \(.*\) is full: free some space, then run this again\.$/)
    expect(result.stderr + result.stdout).not.toMatch(/DATABASE_URL|\bat .*\.js:\d+/)
  }

  it("the import: one line naming the disk, exit 2", async () => {
    const result = await onFullDisk(source, 64, IMPORT_BIN, [many])
    expect(result.code).toBe(2)
    saysDiskFull(result)
  })

  it("productdir-reconcile --check, productdir-agents and the API, with no room even for their lock files: one line each", async () => {
    for (const [bin, args] of [
      [RECONCILE_BIN, ["--check"]],
      [AGENTS_BIN, ["list"]],
      [API_MAIN, []]
    ] as const) {
      const result = await onFullDisk(source, 0, bin, args, { PORT: "0" })
      expect(result.code, bin).not.toBe(0)
      saysDiskFull(result)
    }
  })

  it("with a little room left, the reconciliation's check still runs: it writes nothing", async () => {
    const check = await onFullDisk(source, 64, RECONCILE_BIN, ["--check"])
    expect(check.code).toBe(0)
    expect(check.stdout).toContain("checked 44 products")
  })
})

/**
 * The API with DATA_DIR on a disk of its own (as onFullDisk), holding a copy of `source`, filled to `freeKb`
 * kilobytes left; `free()` deletes the filling, from inside the child's mount namespace (a line on its stdin).
 */
const onFillingDisk = (source: string, freeKb: number, env: Record<string, string>) => {
  const mount = mkdtempSync(join(tmpdir(), "productdir-filling-"))
  const script = [
    "set -e",
    'mount -t tmpfs -o size=64m tmpfs "$MOUNT"',
    'cp -a "$SOURCE" "$MOUNT/data"',
    'avail=$(df --output=avail -k "$MOUNT" | tail -n 1)',
    'dd if=/dev/zero of="$MOUNT/fill" bs=1K count=$((avail - FREE_KB)) 2>/dev/null || true',
    'export DATA_DIR="$MOUNT/data"',
    "set +e",
    // A background list reads /dev/null as its stdin: the test's line comes on a copy of it.
    "exec 3<&0",
    '(read -r line <&3; rm -f "$MOUNT/fill"; echo "disk freed") &',
    'exec "$@" < /dev/null'
  ].join("\n")
  const child = spawn("unshare", [...(isRoot ? ["-m"] : ["-rm"]), "sh", "-c", script, "sh", process.execPath, API_MAIN], {
    cwd: ROOT,
    env: { ...process.env, ...env, MOUNT: mount, SOURCE: source, FREE_KB: String(freeKb), DATABASE_URL: "", STORE: "pglite", PORT: "0" },
    stdio: ["pipe", "pipe", "pipe"],
    // A process group of its own, which signalGroup signals as a service manager would.
    detached: true
  })
  let output = ""
  const url = new Promise<string>((resolveUrl, reject) => {
    const onData = (chunk: string) => {
      output += chunk
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output)
      if (match?.[1]) resolveUrl(match[1])
    }
    child.stdout.setEncoding("utf8").on("data", onData)
    child.stderr.setEncoding("utf8").on("data", onData)
    child.once("close", (code) => reject(new Error(`the API exited with ${code} before listening:\n${output}`)))
  })
  url.catch(() => undefined)
  const exited = new Promise<number | null>((done) =>
    child.once("close", (code) => {
      rmSync(mount, { recursive: true, force: true })
      done(code)
    })
  )
  return { child, url, output: () => output, exited, free: () => child.stdin.write("free\n") }
}

describe("a disk that fills under the running API", { timeout: 240_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "productdir-filling-"))
  const source = join(root, "data")
  beforeAll(async () => {
    expect((await run(IMPORT_BIN, [SAMPLE], { DATA_DIR: source })).code).toBe(0)
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it("writes are refused with 503 and Retry-After, reads and liveness go on, writes resume when space is back, SIGTERM ends it", async () => {
    const [first, second] = sampleRecords()
    const api = onFillingDisk(source, 6 * 1024, { TRUST_PROXY: "1", CROWD_DEFENSE: "off", ANONYMOUS_VOTES_PER_NETWORK: "off" })
    try {
      const base = await api.url
      const refused = await vote(base, { entity_id: first!.id }, { "x-forwarded-for": "198.51.100.1" })
      expect(refused.status, api.output()).toBe(503)
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
      expect((await fetch(`${base}/products/${first!.id}`)).status).toBe(200)
      expect((await fetch(`${base}/products?q=invoice`)).status).toBe(200)
      expect((await fetch(`${base}/healthz`)).status).toBe(200)
      expect((await fetch(`${base}/readyz`)).status).toBe(200)
      // Said in the log, with what to do.
      expect(api.output()).toMatch(/disk has [\d.]+ MiB free, under the [\d.]+ MiB it keeps in reserve: writes are refused/)
      // Space comes back: the next votes are taken (the disk is read every half second).
      api.free()
      let status = 0
      const deadline = Date.now() + 60_000
      for (let i = 0; status !== 201; i++) {
        expect(Date.now(), api.output()).toBeLessThan(deadline)
        await new Promise((r) => setTimeout(r, 250))
        status = (await vote(base, { entity_id: second!.id }, { "x-forwarded-for": `198.51.100.${10 + (i % 200)}` })).status
        expect([201, 503]).toContain(status)
      }
      // Said in the log too (it may reach this side a moment after the vote's answer).
      while (!api.output().includes("free again: writes resume")) {
        expect(Date.now(), api.output()).toBeLessThan(deadline)
        await new Promise((r) => setTimeout(r, 50))
      }
    } finally {
      signalGroup(api.child, "SIGTERM")
    }
    expect(await api.exited).toBe(0)
  })
})
