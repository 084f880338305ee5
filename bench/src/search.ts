/**
 * Benchmark of issue 23, "Search at 1,000,000 products": a catalog whose words follow a Zipf law
 * (bench/src/search-catalog.ts) imported with `productdir-import` into a database of its own (built
 * once, reused while present), VACUUM ANALYZE, then the API in its own process and a load generator
 * in another (bench/src/search-load.ts) driving each query kind through HTTP, every query distinct.
 * Prints p50/p99 of each kind beside its goal and the figure the issue started from, the plans of
 * the slowest query of each kind, CPU and memory of the API and PostgreSQL; medians of three rounds.
 *
 *   npm run bench:search                                   (1,000,000 products on PostgreSQL)
 *   BENCH_PRODUCTS=100000 BENCH_STORE=embedded npm run bench:search    (PGlite, 100,000 products)
 *   BENCH_ROUNDS=1 BENCH_QUERIES=20 npm run bench:search               (a quick look)
 */
import { spawnSync } from "node:child_process"
import { once } from "node:events"
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { ENGLISH_STOP_WORDS } from "@productdir/domain"
import { type Random, seeded } from "@productdir/fixtures/random"
import { cpuMillis } from "./cpu.ts"
import { databaseUrl, ensureDatabase, median, ROOT, SERVER_URL, sleep, startServer, stopServer } from "./lib.ts"
import { brandWords, CATEGORIES, searchRecord, vocabulary } from "./search-catalog.ts"

export const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 1_000_000)
export const DIR = join(ROOT, "bench", "results")
export const NDJSON = join(DIR, `search-catalog-v1-${PRODUCTS}.ndjson`)
export const IMPORTER = join(ROOT, "apps", "import", "bin", "productdir-import.js")

/** Writes the catalog's NDJSON once (a rerun reuses it). */
export const writeCatalog = async () => {
  mkdirSync(DIR, { recursive: true })
  if (existsSync(NDJSON)) return
  console.log(`writing ${PRODUCTS.toLocaleString("en")} products…`)
  const partial = `${NDJSON}.partial`
  const out = createWriteStream(partial)
  const brands = brandWords(PRODUCTS)
  for (let i = 0; i < PRODUCTS; i++) {
    out.write(`${JSON.stringify(searchRecord(i, brands[i]!))}\n`)
    if (out.writableNeedDrain) await once(out, "drain")
  }
  out.end()
  await once(out, "finish")
  renameSync(partial, NDJSON)
}

/** Imports the catalog with productdir-import (timed), as users load one. */
export const importCatalog = (env: NodeJS.ProcessEnv) => {
  const started = process.hrtime.bigint()
  const run = spawnSync(IMPORTER, [NDJSON, "--batch-size", "500"], { env: { ...process.env, ...env }, stdio: "inherit" })
  if (run.status !== 0) throw new Error(`productdir-import failed (${run.status})`)
  return Number(process.hrtime.bigint() - started) / 1e9
}

// ---------------------------------------------------------------------------------------------
// The run.

const STORE = process.env.BENCH_STORE ?? "postgres"
const EMBEDDED = STORE === "embedded"
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const QUERIES = Number(process.env.BENCH_QUERIES ?? 40)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30)
const CONNECTIONS = 16
const LABEL = process.env.BENCH_LABEL ?? "run"
const DATABASE = "productdir_bench_search"
const DATA_DIR = join(DIR, `search-pglite-${PRODUCTS}`)
const PORT = Number(process.env.BENCH_PORT ?? 39121)
const API_LAUNCHER = join(ROOT, "apps/api/bin/productdir-api.js")
const PG_LOG = process.env.BENCH_PG_LOG ?? "/var/log/postgresql/postgresql-15-main.log"
const GOAL_MS = EMBEDDED ? 100 : 50

/** What the issue measured before this work (1M products, PostgreSQL), per kind. */
const ISSUE: Record<string, string> = {
  brand: "54 ms",
  "brand typo": "top 5: 32 of 40",
  common: "p99 4.1 s",
  "two common": "p99 6.3 s",
  "common in category": "p99 1.3 s",
  "word start": "p99 3.1 s",
  typo: "0.34–0.54 s",
  concurrent: "4 req/s"
}

/** The catalog in its database (or PGlite directory), imported once and reused while complete. */
const ensureCatalog = async (): Promise<NodeJS.ProcessEnv> => {
  await writeCatalog()
  if (EMBEDDED) {
    const env = { STORE: "pglite", DATA_DIR }
    if (!existsSync(join(DATA_DIR, "imported"))) {
      rmSync(DATA_DIR, { recursive: true, force: true })
      mkdirSync(DATA_DIR, { recursive: true })
      const seconds = importCatalog({ ...env, SEED: "none" })
      console.log(`imported in ${seconds.toFixed(0)} s`)
      writeFileSync(join(DATA_DIR, "imported"), `${seconds}\n`)
    }
    return env
  }
  const url = databaseUrl(DATABASE)
  const admin = new pg.Client({ connectionString: SERVER_URL })
  await admin.connect()
  const exists = (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE])).rowCount === 1
  await admin.end()
  let ready = false
  if (exists) {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    ready =
      Number((await client.query("SELECT count(*)::int AS n FROM bench_search_catalog").catch(() => ({ rows: [{ n: 0 }] }))).rows[0].n) ===
      1
    await client.end()
  }
  if (!ready) {
    await ensureDatabase(DATABASE, true)
    const seconds = importCatalog({ DATABASE_URL: url })
    console.log(`imported in ${seconds.toFixed(0)} s`)
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query("VACUUM ANALYZE")
    await client.query("CREATE TABLE bench_search_catalog (products int, import_seconds float8)")
    await client.query("INSERT INTO bench_search_catalog VALUES ($1, $2)", [PRODUCTS, seconds])
    await client.end()
  }
  return { DATABASE_URL: url }
}

/** One typo at a random place after the first letter: a letter changed, dropped, doubled or swapped with the next. */
const typoOf = (word: string, r: Random): string => {
  const at = r.int(1, word.length - 2)
  const letter = "abcdefghijklmnopqrstuvwxyz"[r.int(0, 25)]!
  switch (r.int(0, 3)) {
    case 0:
      return word.slice(0, at) + (letter === word[at] ? "q" : letter) + word.slice(at + 1)
    case 1:
      return word.slice(0, at) + word.slice(at + 1)
    case 2:
      return word.slice(0, at) + letter + word.slice(at)
    default:
      return word[at] === word[at + 1]
        ? word.slice(0, at) + letter + word.slice(at + 1)
        : word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2)
  }
}

const path = (q: string, category?: string) =>
  `/products?q=${encodeURIComponent(q)}${category === undefined ? "" : `&category=${encodeURIComponent(category)}`}`

interface KindPlan {
  readonly name: string
  readonly goal: string
  readonly queries: ReadonlyArray<string>
  readonly expect?: ReadonlyArray<string>
}

/** The query sets: each query distinct within its kind; words that are whole words or starts of one are left out where the kind needs them not to be. */
const querySets = async (
  notKnown: (words: ReadonlyArray<string>) => Promise<ReadonlySet<string>>,
  notWhole: (words: ReadonlyArray<string>) => Promise<ReadonlySet<string>>
) => {
  const r = seeded(23)
  const brands = brandWords(PRODUCTS)
  const distinct = (n: number, make: () => string | undefined, tries = n * 50) => {
    const out = new Set<string>()
    for (let t = 0; out.size < n && t < tries; t++) {
      const x = make()
      if (x !== undefined) out.add(x)
    }
    return [...out]
  }
  const brandPicks = distinct(QUERIES, () => String(r.int(0, PRODUCTS - 1))).map(Number)
  const typoPicks = distinct(QUERIES, () => String(r.int(0, PRODUCTS - 1))).map(Number)
  const brandTypos = typoPicks.map((i) => typoOf(brands[i]!, r))
  const common = vocabulary.slice(0, QUERIES)
  const pairs = distinct(QUERIES, () => {
    const a = r.int(0, 99)
    const b = r.int(0, 99)
    return a === b ? undefined : `${vocabulary[a]} ${vocabulary[b]}`
  })
  const inCategory = distinct(QUERIES, () => `${r.int(0, 44)}:${r.int(0, CATEGORIES.length - 1)}`).map((key) => {
    const [w, c] = key.split(":").map(Number)
    return path(vocabulary[w!]!, CATEGORIES[c!])
  })
  // Starts of frequent words that are no word of the catalog themselves.
  const starts = [...new Set(vocabulary.slice(0, 2_000).map((w) => w.slice(0, 4)))].filter(
    (s) => s.length === 4 && !ENGLISH_STOP_WORDS.has(s)
  )
  const startsUnknown = await notWhole(starts)
  const typoCandidates = distinct(QUERIES * 4, () => {
    const w = vocabulary[r.int(300, 3_000)]!
    return w.length >= 5 ? typoOf(w, r) : undefined
  }).filter((t) => !ENGLISH_STOP_WORDS.has(t))
  const typosUnknown = await notKnown(typoCandidates)
  const kinds: Array<KindPlan> = [
    {
      name: "brand",
      goal: `p99 ≤ ${GOAL_MS} ms, in the top 5`,
      queries: brandPicks.map((i) => path(brands[i]!)),
      expect: brandPicks.map((i) => searchRecord(i, brands[i]!).id ?? "")
    },
    {
      name: "brand typo",
      goal: `p99 ≤ ${GOAL_MS} ms, in the top 5 (all but 1–2)`,
      queries: brandTypos.map((q) => path(q)),
      expect: typoPicks.map((i) => searchRecord(i, brands[i]!).id ?? "")
    },
    { name: "common", goal: `p99 ≤ ${GOAL_MS} ms`, queries: common.map((q) => path(q)) },
    { name: "two common", goal: `p99 ≤ ${GOAL_MS} ms`, queries: pairs.map((q) => path(q)) },
    { name: "common in category", goal: `p99 ≤ ${GOAL_MS} ms`, queries: inCategory },
    {
      name: "word start",
      goal: `p99 ≤ ${GOAL_MS} ms`,
      queries: starts
        .filter((s) => startsUnknown.has(s))
        .slice(0, QUERIES)
        .map((q) => path(q))
    },
    {
      name: "typo",
      goal: `p99 ≤ ${GOAL_MS} ms`,
      queries: typoCandidates
        .filter((t) => typosUnknown.has(t))
        .slice(0, QUERIES)
        .map((q) => path(q))
    }
  ]
  // Agents' requests (issue 61): sentences of common words with phrasing around them, and "alternative to" a brand.
  const sentences = distinct(QUERIES, () => {
    const [a, b, c] = [r.int(0, 300), r.int(0, 300), r.int(0, 300)]
    return a === b || b === c ? undefined : `I need a tool that handles ${vocabulary[a]} and ${vocabulary[b]} for our ${vocabulary[c]} team`
  })
  const alternatives = distinct(QUERIES, () => `alternative to ${brands[r.int(0, PRODUCTS - 1)]} for ${vocabulary[r.int(0, 300)]}`)
  kinds.push(
    { name: "sentence", goal: `p99 ≤ ${GOAL_MS} ms`, queries: sentences.map((q) => path(q)) },
    { name: "alternative", goal: `p99 ≤ ${GOAL_MS} ms`, queries: alternatives.map((q) => path(q)) }
  )
  const concurrent = distinct(20_000, () => {
    const a = r.int(300, 3_000)
    const b = r.int(300, 3_000)
    return a === b ? undefined : path(`${vocabulary[a]} ${vocabulary[b]}`)
  })
  return { kinds, concurrent }
}

interface KindResult {
  readonly name: string
  readonly times: ReadonlyArray<number>
  readonly failed: number
  /** Answers with no product: every query of the plan matches some. */
  readonly empty: number
  readonly slowest: { readonly ms: number; readonly query: string }
  readonly found?: number
  readonly of?: number
}

/** Runs the load generator once with `plan`; its one line of results. */
const load = (
  plan: object
): {
  kinds: ReadonlyArray<KindResult>
  concurrent?: { times: ReadonlyArray<number>; failed: number; empty: number; perSecond: number }
} => {
  const run = spawnSync(process.execPath, [join(ROOT, "bench/src/search-load.ts")], {
    input: JSON.stringify(plan),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024
  })
  if (run.status !== 0) throw new Error(`load generator failed: ${run.stderr}`)
  return JSON.parse(run.stdout)
}

const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}

/** PostgreSQL's processes serving this database (their command line names it). */
const databaseBackends = (): ReadonlyArray<number> =>
  readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(` ${DATABASE} `)
      } catch {
        return false
      }
    })

const statusKb = (pid: number, field: string) => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0)
  } catch {
    return 0
  }
}
const pssKb = (pid: number) => {
  try {
    return Number(/Pss:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0)
  } catch {
    return 0
  }
}
const backendsCpu = (pids: ReadonlyArray<number>) => pids.reduce((sum, pid) => sum + cpuMillis(pid), 0)

/** The slowest statement auto_explain logged between two offsets of the server's log, for this database. */
const slowestPlan = (from: number): string | undefined => {
  if (EMBEDDED || !existsSync(PG_LOG)) return undefined
  const text = readFileSync(PG_LOG, "utf8").slice(from)
  let best: { ms: number; text: string } | undefined
  const entries = text.split(/\n(?=\d{4}-\d{2}-\d{2} )/)
  for (const entry of entries) {
    if (!entry.includes(`@${DATABASE} `)) continue
    const m = /duration: ([\d.]+) ms\s+plan:/.exec(entry)
    if (m === null) continue
    const ms = Number(m[1])
    if (best === undefined || ms > best.ms) best = { ms, text: entry }
  }
  return best?.text
}
const logSize = () => (existsSync(PG_LOG) ? statSync(PG_LOG).size : 0)

/** A connection to the catalog's database: the server's, or the embedded API's socket. */
const connect = async () => {
  const client = EMBEDDED
    ? new pg.Client({ host: DATA_DIR, port: 5432, user: "postgres", database: "postgres" })
    : new pg.Client({ connectionString: databaseUrl(DATABASE) })
  await client.connect()
  return client
}

/**
 * Where the store keeps search lists (migration 0012): a search starts their build, and the run waits
 * for it (built once; a rerun finds them). The build's time and the lists' size, or undefined without them.
 */
const waitForLists = async (base: string, query: string) => {
  const client = await connect()
  try {
    const has = await client.query("SELECT to_regclass('search_lists_state') IS NOT NULL AS has")
    if (has.rows[0].has !== true) return undefined
    const started = Date.now()
    // Built, and not being built again (lists an earlier release built, without the starts of words, are built again
    // by the first search: a run measured meanwhile would measure the build).
    const built = async () =>
      (
        await client.query(
          `SELECT built_at IS NOT NULL AND building_since IS NULL
                  AND (to_jsonb(s) ->> 'starts_xid') IS NOT DISTINCT FROM (to_jsonb(s) ->> 'built_xid') AS done
           FROM search_lists_state s`
        )
      ).rows[0]?.done === true
    if (!(await built())) {
      await fetch(base + query)
      console.log("building search lists…")
      while (!(await built())) {
        if (Date.now() - started > 3 * 3600_000) throw new Error("search lists not built within 3 hours")
        await sleep(5_000)
      }
    }
    const size = await client.query(
      `SELECT (SELECT count(*) FROM search_lists)::int AS lists, pg_total_relation_size('search_lists')::float8 AS bytes,
              (SELECT min_df FROM search_lists_state) AS min_df, (SELECT count(*) FROM search_lexemes WHERE df > (SELECT min_df FROM search_lists_state))::int AS lexemes,
              (SELECT count(*) FROM search_starts WHERE category_key = '')::int AS starts, (SELECT count(*) FROM search_starts)::int AS start_rows`
    )
    const row = size.rows[0]
    const seconds = (Date.now() - started) / 1000
    const text = `search lists: ${row.lists.toLocaleString("en")} lists of ${row.lexemes.toLocaleString("en")} lexemes (in more than ${row.min_df} products), ${(row.bytes / 1024 / 1024).toFixed(0)} MB, ${row.starts} starts of words kept (${row.start_rows} with their categories')${seconds > 10 ? `, built in ${seconds.toFixed(0)} s` : ""}`
    console.log(text)
    return text
  } finally {
    await client.end()
  }
}

const main = async () => {
  const env = await ensureCatalog()
  const url = env.DATABASE_URL
  let notKnown: (words: ReadonlyArray<string>) => Promise<ReadonlySet<string>> = async (words) => new Set(words)
  let notWhole = notKnown
  let client: pg.Client | undefined
  if (url !== undefined) {
    client = new pg.Client({ connectionString: url })
    await client.connect()
    // auto_explain for the API's sessions: the plans of the slowest statements, with row counts (no timing: cheap).
    await client.query(`ALTER DATABASE ${DATABASE} SET session_preload_libraries = 'auto_explain'`)
    await client.query(`ALTER DATABASE ${DATABASE} SET auto_explain.log_min_duration = '20ms'`)
    await client.query(`ALTER DATABASE ${DATABASE} SET auto_explain.log_analyze = on`)
    await client.query(`ALTER DATABASE ${DATABASE} SET auto_explain.log_timing = off`)
    await client.query(`ALTER DATABASE ${DATABASE} SET auto_explain.log_buffers = on`)
    const c = client
    notKnown = async (words) =>
      new Set(
        (
          await c.query(
            `SELECT w FROM unnest($1::text[]) w WHERE NOT EXISTS (SELECT 1 FROM search_words s WHERE s.word >= w AND s.word < w || chr(1114111))`,
            [words]
          )
        ).rows.map((row: { w: string }) => row.w)
      )
    notWhole = async (words) =>
      new Set(
        (
          await c.query(`SELECT w FROM unnest($1::text[]) w WHERE NOT EXISTS (SELECT 1 FROM search_words s WHERE s.word = w)`, [words])
        ).rows.map((row: { w: string }) => row.w)
      )
  }
  const sets = await querySets(notKnown, notWhole)
  // BENCH_KINDS=a,b: only these kinds (and the concurrent part only when "concurrent" is named).
  const only = process.env.BENCH_KINDS?.split(",")
  const kinds = sets.kinds.filter((k) => only === undefined || only.includes(k.name))
  const concurrent = sets.concurrent
  const started = Date.now()
  const api = await startServer(
    [],
    { ...env, SEED: "none", PORT: String(PORT), CACHE_MAX_AGE: "0" },
    `http://127.0.0.1:${PORT}/readyz`,
    API_LAUNCHER
  )
  console.log(`API ready in ${((Date.now() - started) / 1000).toFixed(1)} s (migrations, routines and their rewrites included)`)
  const base = `http://127.0.0.1:${PORT}`
  const pid = api.pid!
  const lists = await waitForLists(base, sets.kinds[2]!.queries[0]!)
  // A warm pass of other queries (the first of each kind's statements plans, caches fill).
  load({ base, kinds: kinds.map((k) => ({ name: k.name, queries: k.queries.slice(0, 3).map((q) => `${q}&limit=19`) })) })
  const results = new Map<string, Array<{ p50: number; p99: number; found?: number; of?: number; apiCpu: number; pgCpu: number }>>()
  const plans = new Map<string, { ms: number; plan: string; query: string }>()
  const concurrentRounds: Array<{ perSecond: number; p50: number; p99: number; failed: number; apiCpu: number; pgCpu: number }> = []
  let pgPeakPss = 0
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of kinds) {
      const backends = databaseBackends()
      const [api0, pg0, log0] = [cpuMillis(pid), backendsCpu(backends), logSize()]
      const [result] = load({ base, kinds: [kind] }).kinds
      const n = result!.times.length
      const row = {
        p50: percentile(result!.times, 50),
        p99: percentile(result!.times, 99),
        ...(result!.found !== undefined ? { found: result!.found, of: result!.of } : {}),
        apiCpu: (cpuMillis(pid) - api0) / n,
        pgCpu: (backendsCpu(backends) - pg0) / n
      }
      if (result!.failed > 0) console.log(`  ${kind.name}: ${result!.failed} failed requests`)
      if (result!.empty > 0) console.log(`  ! ${kind.name}: ${result!.empty} answers with no product (every query matches some)`)
      results.set(kind.name, [...(results.get(kind.name) ?? []), row])
      const plan = slowestPlan(log0)
      const seen = plans.get(kind.name)
      if (plan !== undefined && (seen === undefined || result!.slowest.ms > seen.ms))
        plans.set(kind.name, { ms: result!.slowest.ms, plan, query: result!.slowest.query })
      pgPeakPss = Math.max(
        pgPeakPss,
        databaseBackends().reduce((s, p) => s + pssKb(p), 0)
      )
      console.log(
        `round ${round + 1} ${kind.name}: p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms${row.found !== undefined ? `, top 5 ${row.found}/${row.of}` : ""}`
      )
    }
    if (only !== undefined && !only.includes("concurrent")) continue
    const backends = databaseBackends()
    const [api0, pg0] = [cpuMillis(pid), backendsCpu(backends)]
    const c = load({ base, kinds: [], concurrent: { connections: CONNECTIONS, seconds: SECONDS, paths: concurrent.slice(round * 5_000) } })
      .concurrent!
    const n = c.times.length
    concurrentRounds.push({
      perSecond: c.perSecond,
      p50: percentile(c.times, 50),
      p99: percentile(c.times, 99),
      failed: c.failed,
      apiCpu: (cpuMillis(pid) - api0) / n,
      pgCpu: (backendsCpu(databaseBackends()) - pg0) / n
    })
    pgPeakPss = Math.max(
      pgPeakPss,
      databaseBackends().reduce((s, p) => s + pssKb(p), 0)
    )
    console.log(
      `round ${round + 1} concurrent: ${c.perSecond.toFixed(1)} req/s, p99 ${percentile(c.times, 99).toFixed(0)} ms, ${c.failed} failed, ${c.empty} with no product`
    )
  }
  const apiRss = statusKb(pid, "VmRSS") / 1024
  const apiPeak = statusKb(pid, "VmHWM") / 1024
  await stopServer(api)
  if (client !== undefined) {
    await client.query(`ALTER DATABASE ${DATABASE} RESET ALL`)
    await client.end()
  }

  const m = (xs: ReadonlyArray<number>) => median(xs)
  const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`)
  const rows = kinds.map((kind) => {
    const rs = results.get(kind.name) ?? []
    const found = rs[0]?.found !== undefined ? `, top 5: ${m(rs.map((x) => x.found!))}/${rs[0]!.of}` : ""
    return {
      name: kind.name,
      line: `| ${kind.name} (${kind.queries.length} queries) | ${kind.goal} | ${ISSUE[kind.name] ?? ""} | ${fmt(m(rs.map((x) => x.p50)))} / ${fmt(m(rs.map((x) => x.p99)))}${found} | ${m(rs.map((x) => x.apiCpu)).toFixed(1)} | ${m(rs.map((x) => x.pgCpu)).toFixed(1)} |`,
      p50: m(rs.map((x) => x.p50)),
      p99: m(rs.map((x) => x.p99)),
      found: rs[0]?.found !== undefined ? m(rs.map((x) => x.found!)) : undefined
    }
  })
  const cc = {
    perSecond: m(concurrentRounds.map((x) => x.perSecond)),
    p50: m(concurrentRounds.map((x) => x.p50)),
    p99: m(concurrentRounds.map((x) => x.p99)),
    apiCpu: m(concurrentRounds.map((x) => x.apiCpu)),
    pgCpu: m(concurrentRounds.map((x) => x.pgCpu))
  }
  const table = [
    `| query kind | goal | issue (before) | p50 / p99 (median of ${ROUNDS}) | API CPU ms/query | PostgreSQL CPU ms/query |`,
    "|---|---|---|---|---|---|",
    ...rows.map((r) => r.line),
    `| ${CONNECTIONS} connections, random mid-frequency pairs, ${SECONDS} s | ≥ 150 req/s, p99 ≤ 200 ms | ${ISSUE.concurrent} | ${cc.perSecond.toFixed(1)} req/s, ${fmt(cc.p50)} / ${fmt(cc.p99)} | ${cc.apiCpu.toFixed(1)} | ${cc.pgCpu.toFixed(1)} |`
  ].join("\n")
  const memory = `API RSS ${apiRss.toFixed(0)} MB at the end (peak ${apiPeak.toFixed(0)} MB)${EMBEDDED ? " (PGlite runs inside it)" : `; PostgreSQL backends of the database: ${(pgPeakPss / 1024).toFixed(0)} MB PSS at most (shared_buffers shared among them)`}`
  console.log(`\n${STORE}, ${PRODUCTS.toLocaleString("en")} products, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}\n`)
  console.log(table)
  console.log(`\n${memory}\n`)
  if (lists !== undefined) console.log(`${lists}\n`)
  for (const [name, plan] of plans)
    console.log(`--- plan of the slowest statement, ${name} (${fmt(plan.ms)}: ${plan.query})\n${plan.plan}\n`)
  const out = join(DIR, `search-${STORE}-${PRODUCTS}-${LABEL}.json`)
  writeFileSync(
    out,
    JSON.stringify(
      {
        label: LABEL,
        store: STORE,
        products: PRODUCTS,
        lists,
        rows,
        concurrent: cc,
        apiRss,
        apiPeak,
        pgPeakPss,
        table,
        memory,
        plans: Object.fromEntries(plans)
      },
      null,
      2
    )
  )
  console.log(`results: ${out}`)
}

if (import.meta.main) {
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
