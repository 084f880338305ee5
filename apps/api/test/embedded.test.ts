/**
 * One owner per embedded data directory (issue: the embedded database was
 * opened by two processes and corrupted). Real processes on a real directory:
 * a second API refuses, the CLIs join the running API through its socket, and
 * a lock left by a SIGKILLed owner is taken over.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sampleRecords } from "@productdir/fixtures/sample"
import { childEnv, IMPORT_BIN, json, RECONCILE_BIN, run, signalGroup, startApi, type Started, vote } from "./processes.ts"

const sample = sampleRecords()

describe("one owner per embedded data directory", { timeout: 180_000 }, () => {
  const cleanup: Array<() => void> = []
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "productdir-owner-"))
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    return join(dir, "data")
  }
  const api = (env: Record<string, string>): Started => {
    const started = startApi(env)
    cleanup.unshift(() => signalGroup(started.child, "SIGKILL"))
    return started
  }
  afterEach(() => {
    for (const f of cleanup.splice(0)) f()
  })

  it("a second API on the same DATA_DIR refuses at once, while the owner runs: exit 2, one line naming the owner's pid", async () => {
    const dir = dataDir()
    const first = api({ DATA_DIR: dir })
    const base = await first.url
    const second = api({ DATA_DIR: dir })
    // The owner keeps running until the end of the test: a second API that waited for the directory
    // instead of refusing would never exit, and the test would time out here.
    const code = await second.exited
    expect(code).toBe(2)
    const lines = second
      .output()
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith("{"))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(`in use by productdir API (pid ${first.child.pid})`)
    expect(lines[0]).toMatch(/DATABASE_URL/)
    // The first one is untouched.
    expect((await json(`${base}/healthz`)).status).toBe(200)
  })

  it("an import and a reconcile beside a running API go through the API's database: changes show at once, no vote is lost", async () => {
    const dir = dataDir()
    const server = api({
      DATA_DIR: dir,
      VOTE_RATE_PER_VOTER: "0",
      VOTE_RATE_PER_ADDRESS: "0",
      ANONYMOUS_VOTES_PER_NETWORK: "off",
      CROWD_DEFENSE: "off",
      TRUST_PROXY: "1"
    })
    const base = await server.url
    const target = sample[0]!
    const changed = sample.map((r, i) => (i === 0 ? { ...r, ai_summary: `Rewritten by the import. ${r.ai_summary}` } : r))
    const file = join(dir, "..", "catalog.ndjson")
    writeFileSync(file, `${changed.map((r) => JSON.stringify(r)).join("\n")}\n`)

    // Votes keep arriving while the import and a reconcile run beside the API.
    let acknowledged = 0
    let voting = true
    const voter = (async () => {
      for (let i = 0; voting; i++) {
        // Each vote from an address of its own (behind the proxy TRUST_PROXY says there is): a voter each.
        const reply = await vote(base, { entity_id: sample[i % 10]!.id! }, { "x-forwarded-for": `198.18.${(i >> 8) & 255}.${i & 255}` })
        expect([200, 201]).toContain(reply.status)
        if (reply.status === 201) acknowledged++
      }
    })()
    const imported = await run(IMPORT_BIN, [file], { DATA_DIR: dir })
    const reconciled = await run(RECONCILE_BIN, [], { DATA_DIR: dir })
    voting = false
    await voter

    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toMatch(/updated\s+1/)
    expect(reconciled.code, reconciled.stderr).toBe(0)
    const record = await json<{ ai_summary: string; version: number }>(`${base}/products/${target.id}`)
    expect(record.body.ai_summary.startsWith("Rewritten by the import.")).toBe(true)
    expect(record.body.version).toBe(2)

    // Every acknowledged vote is in the ledger and the counters agree with it.
    const check = await run(RECONCILE_BIN, ["--check"], { DATA_DIR: dir })
    expect(check.code, check.stdout + check.stderr).toBe(0)
    expect(check.stdout).toMatch(/drifted 0/)
    // The summary writes thousands with commas ("1,160"): a slow machine casts that many while the CLIs run.
    const votesScanned = Number(/votes scanned ([\d,]+)/.exec(check.stdout)?.[1]?.replaceAll(",", ""))
    expect(votesScanned).toBe(acknowledged)
    expect(acknowledged).toBeGreaterThan(0)
  })

  it("a CLI beside another CLI refuses, naming it; a lock left by a SIGKILLed owner is taken over", async () => {
    const dir = dataDir()
    const first = api({ DATA_DIR: dir })
    await first.url
    signalGroup(first.child, "SIGKILL")
    await first.exited
    // The kernel released the lock with the process: the next owner starts at once.
    const second = api({ DATA_DIR: dir })
    const base = await second.url
    expect((await json<{ items: Array<unknown> }>(`${base}/products?limit=1`)).body.items).toHaveLength(1)
    expect(second.output()).not.toContain("seeded the sample catalog")
    signalGroup(second.child, "SIGTERM")
    expect(await second.exited).toBe(0)

    // An import that owns the directory (no API running) while it reads makes a second CLI refuse: here it reads a
    // stdin that stays open. (A reconcile schedule holds the directory only during its passes.)
    const importing = spawn(process.execPath, [IMPORT_BIN, "-"], {
      env: childEnv({ DATA_DIR: dir }),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true
    })
    cleanup.unshift(() => signalGroup(importing, "SIGKILL"))
    // Once it owns the directory (its owner file names it), not before: a check started first would own it instead.
    const owner = () => {
      try {
        return (JSON.parse(readFileSync(join(dir, "productdir-owner.json"), "utf8")) as { pid?: number }).pid
      } catch {
        return undefined
      }
    }
    for (let waited = 0; owner() !== importing.pid && waited < 60_000; waited += 100) await new Promise((r) => setTimeout(r, 100))
    expect(owner()).toBe(importing.pid)
    const refused = await run(RECONCILE_BIN, ["--check"], { DATA_DIR: dir })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`in use by productdir-import (pid ${importing.pid}). Wait for it to finish, or set DATABASE_URL`)
    // Its input ended, the import finishes and lets the directory go.
    importing.stdin!.end()
    expect(await new Promise((done) => importing.once("close", done))).toBe(0)
    expect((await run(RECONCILE_BIN, ["--check"], { DATA_DIR: dir })).code).toBe(0)
  })
})
