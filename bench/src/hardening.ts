/**
 * Benchmark of issue 57, "Nothing one client sends can crash, stall or lock out the service", on PostgreSQL:
 *
 * 1. Lockouts, at 100,000 products (the search benchmark's catalog): another client's search p99 while one address
 *    sends, on many connections, the deep page of a common word's search, listings of categories no product has, or
 *    MCP batches of 32 searches; beside the same search unloaded, in the same run. Goal: ≤ 3× the unloaded p99, and
 *    the API alive. The load comes from a process of its own (hardening-load.ts); medians of three rounds.
 * 2. Records at the documented limits: 200 records of about 1 MB each through the import (default flags), the
 *    export, 8 concurrent `GET /products?limit=100` and an MCP batch of get_product calls. Goal: all complete, the
 *    API's RSS ≤ 300 MB.
 *
 *   npm run bench:hardening                       (both)
 *   BENCH_ONLY=lockouts|records BENCH_ROUNDS=1 BENCH_SECONDS=10 npm run bench:hardening
 */
import { spawn, spawnSync } from "node:child_process"
import { once } from "node:events"
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { bulkyRecord } from "@productdir/fixtures"
import { databaseUrl, ensureDatabase, median, ROOT, SERVER_URL, sleep, startServer, stopServer, writeSection } from "./lib.ts"
import { brandWords, searchRecord, vocabulary } from "./search-catalog.ts"

const ONLY = process.env.BENCH_ONLY
/** The attacks to run (comma-separated kinds: page, category, mcp); every one when unset. The unloaded baseline always runs. */
const ATTACKS = process.env.BENCH_ATTACKS?.split(",")
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20)
const PRODUCTS = 100_000
const DIR = join(ROOT, "bench", "results")
const CATALOG = join(DIR, `search-catalog-v1-${PRODUCTS}.ndjson`)
const BULKY = join(DIR, "bulky-200.ndjson")
const IMPORTER = join(ROOT, "apps", "import", "bin", "productdir-import.js")
const API = join(ROOT, "apps", "api", "bin", "productdir-api.js")
const PORT = Number(process.env.BENCH_PORT ?? 39157)
const BASE = `http://127.0.0.1:${PORT}`

const writeLines = async (path: string, n: number, line: (i: number) => string) => {
  mkdirSync(DIR, { recursive: true })
  if (existsSync(path)) return
  const partial = `${path}.partial`
  const out = createWriteStream(partial)
  for (let i = 0; i < n; i++) {
    out.write(`${line(i)}\n`)
    if (out.writableNeedDrain) await once(out, "drain")
  }
  out.end()
  await once(out, "finish")
  renameSync(partial, path)
}

/** A command's exit code, wall time and peak RSS (GNU time's, from /proc when it is missing). */
const timed = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => {
  const started = process.hrtime.bigint()
  const run = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, ...args], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 1024 * 1024 * 1024
  })
  const peakKb = Number(run.stderr.trim().split("\n").at(-1))
  return { code: run.status, seconds: Number(process.hrtime.bigint() - started) / 1e9, peakMb: peakKb / 1024, stdout: run.stdout }
}

const rssOf = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0)
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 }
}

/** The API's own process (the launcher runs it in place: its pid is the API's). */
const startApi = (env: NodeJS.ProcessEnv) =>
  startServer([API], { PORT: String(PORT), LOG_LEVEL: "warn", TRUST_PROXY: "1", ...env }, `${BASE}/readyz`)

// ---------------------------------------------------------------------------------------------
// 1. Lockouts.

const lockouts = async () => {
  await writeLines(
    CATALOG,
    PRODUCTS,
    (() => {
      const brands = brandWords(PRODUCTS)
      return (i: number) => JSON.stringify(searchRecord(i, brands[i]!))
    })()
  )
  const url = databaseUrl("productdir_bench_hardening")
  const admin = new pg.Client({ connectionString: SERVER_URL })
  await admin.connect()
  const exists = (await admin.query("SELECT 1 FROM pg_database WHERE datname = 'productdir_bench_hardening'")).rowCount === 1
  await admin.end()
  let ready = false
  if (exists) {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    ready = (await client.query("SELECT count(*)::int AS n FROM products").catch(() => ({ rows: [{ n: 0 }] }))).rows[0].n === PRODUCTS
    await client.end()
  }
  if (!ready) {
    await ensureDatabase("productdir_bench_hardening", true)
    console.log(`importing ${PRODUCTS.toLocaleString("en")} products…`)
    const run = timed([IMPORTER, CATALOG], { DATABASE_URL: url })
    if (run.code !== 0) throw new Error("import failed")
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query("VACUUM ANALYZE")
    await client.end()
  }
  const api = await startApi({ DATABASE_URL: url })
  try {
    // The search lists of a catalog this large, built before anything is measured.
    await fetch(`${BASE}/products?q=${vocabulary[0]}`)
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    for (let i = 0; i < 600; i++) {
      const row = (await client.query("SELECT built_at FROM search_lists_state")).rows[0]
      if (row?.built_at !== null && row?.built_at !== undefined) break
      await sleep(1_000)
    }
    await client.end()
    const victimQueries = vocabulary.slice(50, 450)
    const scenarios = [
      { name: "unloaded", attack: { kind: "none", connections: 0 } },
      { name: "page 5 of a common word, 8 connections", attack: { kind: "page", connections: 8 } },
      { name: "a category no product has, 8 connections", attack: { kind: "category", connections: 8 } },
      { name: "MCP batches of 32 searches, 64 connections", attack: { kind: "mcp", connections: 64 } }
    ].filter((s) => s.attack.kind === "none" || ATTACKS === undefined || ATTACKS.includes(s.attack.kind))
    const results = new Map<string, Array<{ p50: number; p99: number; n: number; attacker: Record<string, number> }>>()
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of scenarios) {
        const plan = { base: BASE, seconds: SECONDS, victimQueries, attack: { ...scenario.attack, word: vocabulary[0] } }
        const load = spawn(process.execPath, [join(ROOT, "bench", "src", "hardening-load.ts")], { stdio: ["pipe", "pipe", "inherit"] })
        load.stdin.end(JSON.stringify(plan))
        let out = ""
        load.stdout.setEncoding("utf8").on("data", (d: string) => (out += d))
        await once(load, "close")
        const result = JSON.parse(out) as { victim: { p50: number; p99: number; n: number }; attacker: Record<string, number> }
        const alive = (await fetch(`${BASE}/healthz`)).status === 200
        if (!alive) throw new Error(`the API did not survive: ${scenario.name}`)
        results.set(scenario.name, [...(results.get(scenario.name) ?? []), { ...result.victim, attacker: result.attacker }])
        console.log(
          `round ${round + 1}: ${scenario.name}: victim p50 ${result.victim.p50.toFixed(1)} ms, p99 ${result.victim.p99.toFixed(1)} ms (${result.victim.n} searches); attacker ${JSON.stringify(result.attacker)}`
        )
      }
    }
    const unloaded = median(results.get("unloaded")!.map((r) => r.p99))
    const rows = scenarios.map((s) => {
      const runs = results.get(s.name)!
      const p99 = median(runs.map((r) => r.p99))
      const ratio = p99 / unloaded
      const answered = runs.at(-1)!.attacker
      return `| ${s.name} | ${median(runs.map((r) => r.p50)).toFixed(1)} ms | ${p99.toFixed(1)} ms | ${s.name === "unloaded" ? "1×" : `${ratio.toFixed(2)}×`} | ${s.name === "unloaded" ? "" : ratio <= 3 ? "≤ 3×: met" : "≤ 3×: **not met**"} | ${Object.entries(
        answered
      )
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ")} |`
    })
    return [
      `100,000 products on PostgreSQL; another address's search (\`GET /products?q=<word>\`, a new word each time) while one address attacks; medians of ${ROUNDS} rounds of ${SECONDS} s. The API lived through every round.`,
      "",
      "| attack | victim p50 | victim p99 | p99 / unloaded | goal | the attacker's answers (last round) |",
      "|---|---|---|---|---|---|",
      ...rows
    ].join("\n")
  } finally {
    await stopServer(api)
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Records at the documented limits.

const records = async () => {
  await writeLines(BULKY, 200, (i) => JSON.stringify(bulkyRecord(i)))
  const url = await ensureDatabase("productdir_bench_bulky", true)
  const imported = timed([IMPORTER, BULKY], { DATABASE_URL: url })
  const exportFile = join(DIR, "bulky-export.ndjson")
  const exported = timed([IMPORTER, "export", exportFile], { DATABASE_URL: url })
  const exportedLines = readFileSync(exportFile, "utf8")
    .split("\n")
    .filter((l) => l.length > 0).length
  rmSync(exportFile, { force: true })
  const api = await startApi({ DATABASE_URL: url })
  try {
    const before = rssOf(api.pid!)
    const pages = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`${BASE}/products?limit=100`).then(async (r) => ({ status: r.status, bytes: (await r.arrayBuffer()).byteLength }))
      )
    )
    const streams = { accept: "application/json, text/event-stream", "content-type": "application/json", "x-forwarded-for": "198.51.100.9" }
    const opened = await fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: streams,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "b", version: "1" } }
      })
    })
    const session = { ...streams, "mcp-session-id": opened.headers.get("mcp-session-id")! }
    await fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
    })
    const id = (JSON.parse(readFileSync(BULKY, "utf8").split("\n")[0]!) as { id: string }).id
    const batch = await fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: session,
      body: JSON.stringify(
        Array.from({ length: 32 }, (_, i) => ({
          jsonrpc: "2.0",
          id: i,
          method: "tools/call",
          params: { name: "get_product", arguments: { entity_id: id } }
        }))
      )
    })
    const replies = (await batch.json()) as Array<{ result?: unknown; error?: { code: number } }>
    const after = rssOf(api.pid!)
    const alive = (await fetch(`${BASE}/healthz`)).status === 200
    return [
      `200 records of about 1 MB each (fixtures' bulkyRecord: 202 MB of NDJSON) on PostgreSQL.`,
      "",
      "| step | outcome | peak RSS | goal |",
      "|---|---|---|---|",
      `| import, default flags | exit ${imported.code}, ${imported.seconds.toFixed(1)} s | ${imported.peakMb.toFixed(0)} MB (the importer) | completes |`,
      `| export | exit ${exported.code}, ${exportedLines} lines, ${exported.seconds.toFixed(1)} s | ${exported.peakMb.toFixed(0)} MB (the exporter) | completes |`,
      `| 8 × \`GET /products?limit=100\` at once | ${pages.map((p) => p.status).join(" ")}, ${(pages[0]!.bytes / 1e6).toFixed(2)} MB each | — | all 200 |`,
      `| one MCP batch of 32 get_product | ${batch.status}: ${replies.filter((r) => r.result !== undefined).length} answered, ${replies.filter((r) => r.error?.code === -32001).length} not run (the batch's 1 MiB) | — | completes |`,
      `| the API throughout | ${alive ? "alive" : "**dead**"}; RSS ${before.rss.toFixed(0)} MB before, ${after.rss.toFixed(0)} MB after | ${after.peak.toFixed(0)} MB | ≤ 300 MB: ${after.peak <= 300 ? "met" : "**not met**"} |`
    ].join("\n")
  } finally {
    await stopServer(api)
  }
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? "?"}, load ${loadavg()[0]!.toFixed(2)} at start`
const sections: Array<string> = []
if (ONLY === undefined || ONLY === "lockouts") sections.push(`### Lockouts\n\n${await lockouts()}`)
if (ONLY === undefined || ONLY === "records") sections.push(`### Records at the documented limits\n\n${await records()}`)
const body = [`Machine: ${machine}. \`npm run bench:hardening\`.`, "", ...sections].join("\n")
console.log(`\n${body}`)
if (ONLY === undefined) writeSection("Issue 57: one client cannot crash, stall or lock out the service", body)
