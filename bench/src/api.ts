/**
 * The HTTP API against a hand-written node:http + node-postgres server doing the
 * same work (bench/src/baseline-server.ts), on the same PostgreSQL database,
 * with wrk as the load generator in its own process (2 threads, 64 connections,
 * alternating rounds, medians of three):
 *
 * - reads: GET /products/{random id}; a ready-made-bytes server shows the ceiling;
 * - votes: random products by 2,000 registered agents from random addresses
 *   (the baseline: a random voter id in the body, no proof, no limits);
 * - a vote storm: one product, many agents, to show what bounds it;
 * - freshness: 20 votes through one API process, each polled on a second one;
 * - RSS of the API across five one-minute loads of reads and votes.
 *
 *   npm run bench:api                                   (20,000 products, 3 rounds of 10 s)
 *   BENCH_SECONDS=5 BENCH_ROUNDS=1 BENCH_RSS_LOADS=0 npm run bench:api   (a quick look)
 */
import { type ChildProcess, execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Redacted } from "effect"
import pg from "pg"
import { CatalogStore, fromImportRecord, type ProductId } from "@productdir/domain"
import { generateRecord } from "@productdir/fixtures/generator"
import { layerPostgres } from "@productdir/store-postgres"
import { ensureDatabase, median, ROOT, sleep, startServer, stopServer, writeSection } from "./lib.ts"
import { type Figures, requireWrk, runWrk } from "./wrk.ts"

const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 20_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64)
const THREADS = 2
const AGENTS = Number(process.env.BENCH_AGENTS ?? 2_000)
const RSS_LOADS = Number(process.env.BENCH_RSS_LOADS ?? 5)
const RSS_LOAD_SECONDS = Number(process.env.BENCH_RSS_LOAD_SECONDS ?? 60)
const API_LAUNCHER = join(ROOT, "apps/api/bin/productdir-api.js")
const PORTS = { api: 39101, baseline: 39102, second: 39103, ceiling: 39104 } as const

const url = (port: number) => `http://127.0.0.1:${port}`

/** The catalog: PRODUCTS generated products (loaded once; a rerun reuses them). */
const load = async (database: string) => {
  const client = new pg.Client({ connectionString: database })
  await client.connect()
  const have = Number((await client.query("SELECT count(*) AS n FROM products").catch(() => ({ rows: [{ n: 0 }] }))).rows[0].n)
  if (have < PRODUCTS) {
    console.log(`loading ${PRODUCTS - have} generated products…`)
    await Effect.runPromise(
      Effect.gen(function* () {
        const catalog = yield* CatalogStore
        for (let start = have; start < PRODUCTS; start += 1000) {
          const inputs = []
          for (let i = start; i < Math.min(PRODUCTS, start + 1000); i++) {
            const record = generateRecord(42, i)
            inputs.push(fromImportRecord(record, record.id as ProductId).input)
          }
          yield* catalog.upsert(inputs)
        }
      }).pipe(Effect.provide(layerPostgres(Redacted.make(database))))
    )
  }
  const ids = (await client.query("SELECT id FROM products WHERE removed_at IS NULL ORDER BY id LIMIT $1", [PRODUCTS])).rows.map(
    (r) => r.id as string
  )
  await client.end()
  return ids
}

/** Registers the agents the API's votes are cast by; answers their keys. */
const registerAgents = async (base: string): Promise<Array<string>> => {
  const keys: Array<string> = []
  const one = async (i: number) => {
    const response = await fetch(`${base}/agents`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": `192.0.2.${i % 250}` },
      body: JSON.stringify({ name: `bench-agent-${i}` })
    })
    if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`)
    keys.push(((await response.json()) as { api_key: string }).api_key)
  }
  for (let i = 0; i < AGENTS; i += 16) await Promise.all(Array.from({ length: Math.min(16, AGENTS - i) }, (_, j) => one(i + j)))
  return keys
}

const rssOf = (child: ChildProcess): number => {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
}

/** 20 votes through `writer`, each polled on `reader` until it shows: the delays in ms. */
const freshness = async (writer: string, reader: string, ids: ReadonlyArray<string>, key: string) => {
  const delays: Array<number> = []
  for (let i = 0; i < 20; i++) {
    const id = ids[(i * 7919) % ids.length]!
    const trust = async () => JSON.stringify(((await (await fetch(`${reader}/products/${id}`)).json()) as { trust: unknown }).trust)
    const before = await trust()
    const cast = await fetch(`${writer}/vote`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-forwarded-for": `198.51.100.${i}` },
      body: JSON.stringify({ entity_id: id, direction: i % 2 === 0 ? "up" : "down" })
    })
    if (cast.status !== 201) throw new Error(`freshness vote answered ${cast.status}: ${await cast.text()}`)
    const started = performance.now()
    while ((await trust()) === before && performance.now() - started < 5_000) await sleep(5)
    delays.push(Math.round(performance.now() - started))
  }
  return delays
}

const cell = (f: Figures) => `${f.rps.toFixed(0)} req/s, p50 ${f.p50.toFixed(1)} / p99 ${f.p99.toFixed(1)} ms`

const main = async () => {
  requireWrk()
  const database = await ensureDatabase("productdir_bench_reads", process.env.BENCH_FRESH === "1")
  const ids = await load(database)
  const dir = mkdtempSync(join(tmpdir(), "productdir-bench-"))
  const idsFile = join(dir, "ids.txt")
  writeFileSync(idsFile, `${ids.join("\n")}\n`)
  console.log(`${ids.length} products; ${ROUNDS} round(s) of ${SECONDS} s per measurement; wrk -t${THREADS} -c${CONNECTIONS}`)

  const apiEnv = {
    DATABASE_URL: database,
    SEED: "none",
    TRUST_PROXY: "1",
    AGENT_REGISTRATIONS_PER_ADDRESS: "0",
    // On, and too high to refuse: the shared limits' cost is part of every vote measured.
    VOTE_RATE_PER_VOTER: "100000000",
    VOTE_RATE_PER_ADDRESS: "100000000"
  }
  // As `npm start` runs it: the launcher, with its heap caps.
  const api = await startServer([], { ...apiEnv, PORT: String(PORTS.api) }, `${url(PORTS.api)}/readyz`, API_LAUNCHER)
  const second = await startServer([], { ...apiEnv, PORT: String(PORTS.second) }, `${url(PORTS.second)}/readyz`, API_LAUNCHER)
  const baseline = await startServer(
    ["bench/src/baseline-server.ts"],
    { DATABASE_URL: database, PORT: String(PORTS.baseline) },
    `${url(PORTS.baseline)}/products/${ids[0]}`
  )
  const sampleBody = await (await fetch(`${url(PORTS.api)}/products/${ids[0]}`)).text()
  const ceiling = await startServer(
    ["bench/src/ready-bytes-server.ts"],
    { PORT: String(PORTS.ceiling), BODY: sampleBody },
    url(PORTS.ceiling)
  )

  const samples = new Map<string, Array<Figures>>()
  const rss: Array<number> = []
  let delays: Array<number> = []
  try {
    const keys = await registerAgents(url(PORTS.api))
    const keysFile = join(dir, "keys.txt")
    writeFileSync(keysFile, `${keys.join("\n")}\n`)
    console.log(`${keys.length} agents registered`)
    const stormId = ids[Math.floor(ids.length / 2)]!

    const measure = async (name: string, port: number, script: "read.lua" | "vote.lua", env: NodeJS.ProcessEnv) => {
      const figures = await runWrk({ url: url(port), script, seconds: SECONDS, connections: CONNECTIONS, threads: THREADS, env })
      samples.set(name, [...(samples.get(name) ?? []), figures])
      console.log(`  ${name.padEnd(18)} ${cell(figures)}  errors ${figures.errors}`)
    }
    const reads = { BENCH_IDS: idsFile }
    const agentVotes = { BENCH_IDS: idsFile, BENCH_KEYS: keysFile }
    const baselineVotes = { BENCH_IDS: idsFile, BENCH_KEYS: "" }

    // Warm both servers (the API's cache fills as the baseline's buffers do), unmeasured.
    await runWrk({ url: url(PORTS.api), script: "read.lua", seconds: 10, connections: CONNECTIONS, threads: THREADS, env: reads })
    await runWrk({ url: url(PORTS.baseline), script: "read.lua", seconds: 5, connections: CONNECTIONS, threads: THREADS, env: reads })

    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}`)
      // Alternate who goes first, so warm caches and drift favour neither.
      const pairs: Array<Array<() => Promise<void>>> = [
        [() => measure("api read", PORTS.api, "read.lua", reads), () => measure("baseline read", PORTS.baseline, "read.lua", reads)],
        [
          () => measure("api vote", PORTS.api, "vote.lua", agentVotes),
          () => measure("baseline vote", PORTS.baseline, "vote.lua", baselineVotes)
        ],
        [
          () => measure("api storm", PORTS.api, "vote.lua", { ...agentVotes, BENCH_STORM_ID: stormId }),
          () => measure("baseline storm", PORTS.baseline, "vote.lua", { ...baselineVotes, BENCH_STORM_ID: stormId })
        ]
      ]
      for (const [first, then] of pairs) {
        if (round % 2 === 1) {
          await first!()
          await then!()
        } else {
          await then!()
          await first!()
        }
      }
      await measure("ceiling read", PORTS.ceiling, "read.lua", reads)
    }

    delays = await freshness(url(PORTS.api), url(PORTS.second), ids, keys[0]!)
    console.log(`freshness over 20 votes: ${delays.join(", ")} ms`)

    if (RSS_LOADS > 0) {
      rss.push(rssOf(api))
      console.log(`API RSS at rest: ${rss[0]} MB`)
      for (let i = 1; i <= RSS_LOADS; i++) {
        await Promise.all([
          runWrk({ url: url(PORTS.api), script: "read.lua", seconds: RSS_LOAD_SECONDS, connections: 56, threads: 1, env: reads }),
          runWrk({ url: url(PORTS.api), script: "vote.lua", seconds: RSS_LOAD_SECONDS, connections: 8, threads: 1, env: agentVotes })
        ])
        await sleep(2_000)
        rss.push(rssOf(api))
        console.log(`API RSS after load ${i}: ${rss.at(-1)} MB`)
      }
    }
  } finally {
    for (const child of [api, second, baseline, ceiling]) await stopServer(child)
  }

  const m = (name: string): Figures => {
    const list = samples.get(name) ?? []
    return {
      rps: median(list.map((f) => f.rps)),
      p50: median(list.map((f) => f.p50)),
      p99: median(list.map((f) => f.p99)),
      errors: list.reduce((n, f) => n + f.errors, 0)
    }
  }
  const row = (label: string, api: Figures, base: Figures, target: string) =>
    `| ${label} | ${cell(api)} | ${cell(base)} | ${(api.rps / base.rps).toFixed(2)}× | ${(api.p99 / base.p99).toFixed(2)}× | ${target} |`
  const table = [
    "| measurement | productdir | baseline | req/s ratio | p99 ratio | target |",
    "|---|---|---|---|---|---|",
    row("GET /products/{id}", m("api read"), m("baseline read"), "≥ 3× req/s, p99 ≤ 1×"),
    row("POST /vote (registered agents, distinct voters)", m("api vote"), m("baseline vote"), "≥ 0.8× req/s"),
    row("vote storm: one product, 64 connections", m("api storm"), m("baseline storm"), "reported")
  ].join("\n")
  const freshnessLine = `max ${Math.max(...delays)} ms, median ${median(delays)} ms over ${delays.length} votes (target: max ≤ 1,000 ms)`
  const rssLine =
    rss.length > 0
      ? `${rss.join(" → ")} MB (at rest, then after each of ${RSS_LOADS} loads of ${RSS_LOAD_SECONDS} s: reads at 56 connections and votes at 8 at once; target ≤ 300 MB and flat)`
      : "not measured (BENCH_RSS_LOADS=0)"
  const errors = ["api read", "baseline read", "api vote", "baseline vote", "api storm", "baseline storm"]
    .map((name) => `${name} ${m(name).errors}`)
    .join(", ")
  console.log(`\n${table}\n\nceiling (ready-made bytes): ${cell(m("ceiling read"))}\nfreshness: ${freshnessLine}\nRSS: ${rssLine}\n`)

  const wrkVersion = execFileSync("sh", ["-c", "wrk --version 2>&1 | head -1 || true"]).toString().trim()
  writeSection(
    "HTTP API: reads, votes, freshness and memory against a hand-written server",
    `
Command: \`npm run bench:api\`. ${ids.length.toLocaleString("en")} generated products in PostgreSQL on 127.0.0.1:5432; load from
\`${wrkVersion}\` in its own process, \`wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s --latency\` (scripts in \`bench/wrk/\`), ${ROUNDS}
rounds in alternating order, medians shown. Machine: ${cpus().length} cores, ${new Date().toISOString().slice(0, 10)}; the servers, PostgreSQL
and wrk share them. The API runs as \`npm start\` does (\`apps/api/bin/productdir-api.js\`: heap capped at 160 MB, access log at info, rate limits on in
PostgreSQL but too high to refuse, \`CACHE_BYTES\` at its 64 MB default, \`TRUST_PROXY=1\`). The baseline is
\`bench/src/baseline-server.ts\`: node:http + node-postgres, one query per read, the same vote transaction, a voter id
in the body, no proof and no limits. Errors (non-2xx and socket): ${errors}.

${table}

- Ceiling: a node:http server answering every request with one ready-made record (\`bench/src/ready-bytes-server.ts\`):
  ${cell(m("ceiling read"))}.
- Freshness: a vote through one API process, then its product read on a second one until it shows the vote:
  ${freshnessLine}.
- RSS of the API: ${rssLine}.
`
  )
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
