/**
 * The HTTP API against a hand-written node:http + node-postgres server doing the
 * same work (bench/src/baseline-server.ts), on the same PostgreSQL database,
 * with wrk as the load generator in its own process (2 threads, 64 connections,
 * alternating rounds; a ratio is each round's pair, measured side by side, and the
 * median of the three, or of every slice's pair where a round measures a pair in
 * slices; other figures are medians):
 *
 * - reads: GET /products/{random id}; the cached read's goal is set against a
 *   ready-made-bytes server writing the same bytes as the API (each product's own
 *   record and headers, a request id, an access-log line), measured in turn with
 *   it; the same server writing one record for every id shows the ceiling, and
 *   one writing each record alone what the extras cost;
 * - votes: random products by 2,000 registered agents from random addresses
 *   (the baseline: a random voter id in the body, no proof, no limits);
 * - a vote storm: one product, many agents, to show what bounds it;
 * - freshness: 20 votes through one API process, each polled on a second one;
 * - where a request's time goes: CPU per request of the server and of PostgreSQL
 *   in every measurement, and, in an untimed run through a counting proxy, the
 *   statements, round trips, transactions and WAL flushes of one vote;
 * - RSS of the API across five one-minute loads of reads (half of them asking
 *   for gzip, as most HTTP clients do) and votes.
 *
 *   npm run bench:api                                   (20,000 products, 3 rounds of 10 s)
 *   BENCH_SECONDS=5 BENCH_ROUNDS=1 BENCH_RSS_LOADS=0 npm run bench:api   (a quick look)
 */
import { type ChildProcess, execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Redacted } from "effect"
import pg from "pg"
import { CatalogStore, fromImportRecord, type ProductId } from "@productdir/domain"
import { generateRecord } from "@productdir/fixtures/generator"
import { layerPostgres } from "@productdir/store-postgres"
import { cpuMillis, postgresCpuMillis } from "./cpu.ts"
import { ensureDatabase, median, ROOT, sleep, startServer, stopServer, writeSection } from "./lib.ts"
import { startWireCounter } from "./wire-count.ts"
import { type Figures, pooledPercentile, requireWrk, runWrk } from "./wrk.ts"

const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 20_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
/**
 * The cached read's goal pair is measured in this many alternating slices a round (SECONDS / SLICES each, who
 * goes first alternating): on a shared virtual machine the throughput of one server drifted by a third within
 * a minute, and one 10 s pair a round left each ratio to that drift (0.78-0.97 in one run, the same code).
 */
const SAME_BYTES_SLICES = Number(process.env.BENCH_SAME_BYTES_SLICES ?? 5)
/** A slice's length: whole seconds, as wrk runs them (it would cut 1.4 s to 1 s, and the rates would be divided by 1.4). */
const SLICE_SECONDS = Math.max(1, Math.round(SECONDS / SAME_BYTES_SLICES))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64)
const THREADS = 2
/**
 * wrk's threads for the cached read's goal pair: one. On a 2-core machine two wrk threads and the server are three
 * busy threads on two cores, and which two shared a core changed from one run to the next: the same server gave
 * 16-17k or 21-24k req/s, slice after slice. With one, the server has a core and wrk the other (one wrk thread
 * drives 31k req/s here, more than either server answers).
 */
const SAME_BYTES_THREADS = Number(process.env.BENCH_SAME_BYTES_THREADS ?? 1)
const AGENTS = Number(process.env.BENCH_AGENTS ?? 2_000)
const RSS_LOADS = Number(process.env.BENCH_RSS_LOADS ?? 5)
const RSS_LOAD_SECONDS = Number(process.env.BENCH_RSS_LOAD_SECONDS ?? 60)
/** Which measurements run (comma-separated of read, vote, storm; all by default): a short look at one of them. */
const ONLY = new Set((process.env.BENCH_ONLY ?? "read,vote,storm").split(",").map((s) => s.trim()))
/** `0`: skip the untimed count of what a vote sends (two servers started, 11 s idle each). */
const ANATOMY = process.env.BENCH_ANATOMY !== "0"
/** A directory: the API runs with `--cpu-prof` into it (a profile of every measurement it serves). */
const CPU_PROF = process.env.BENCH_CPU_PROF
/** The storm's goal, from issue #23: this many times the baseline's storm, and this many counted votes a second. */
const STORM_GOAL = { ratio: 3, votesPerSecond: 3_000 } as const
/** The cached read's goal against a server writing the same bytes (bench/src/ready-bytes-server.ts, EXTRAS=1): this share of its req/s, and a p99 no worse. */
const SAME_BYTES_GOAL = 0.85
const RECONCILE = join(ROOT, "apps/reconcile/bin/productdir-reconcile.js")
const API_LAUNCHER = join(ROOT, "apps/api/bin/productdir-api.js")
const PORTS = { api: 39101, baseline: 39102, second: 39103, ceiling: 39104, counted: 39105, perRecord: 39106, sameBytes: 39107 } as const

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
/**
 * Every product's record as the API serves it, as JSON lines `[id, record, etag, cache-control]`, read 100 at a
 * time (warming its cache): what a server writing the same bytes as the API needs to write them.
 */
const recordsOf = async (base: string, ids: ReadonlyArray<string>): Promise<string> => {
  const lines: Array<string> = []
  for (let i = 0; i < ids.length; i += 100) {
    const part = await Promise.all(
      ids.slice(i, i + 100).map(async (id) => {
        const response = await fetch(`${base}/products/${id}`)
        return JSON.stringify([id, await response.text(), response.headers.get("etag"), response.headers.get("cache-control")])
      })
    )
    lines.push(...part)
  }
  return `${lines.join("\n")}\n`
}

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
const freshness = async (database: string, writer: string, reader: string, ids: ReadonlyArray<string>) => {
  // An agent of its own, new on every run: each of its votes is a first one, so each changes a product.
  const registered = await fetch(`${writer}/agents`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": `203.0.113.${Math.floor(Math.random() * 250)}` },
    body: JSON.stringify({ name: "bench-freshness" })
  })
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}: ${await registered.text()}`)
  const { api_key: key, agent_id: agent } = (await registered.json()) as { api_key: string; agent_id: string }
  // With standing, as the integrity pass gives an agent that votes like no crowd: the runs before this
  // one leave products past the burst guard's floor, and a new agent's vote there is held (its product's
  // trust does not move, which would read as a stale process).
  const client = new pg.Client({ connectionString: database })
  await client.connect()
  await client.query("UPDATE agents SET standing_since = now() WHERE id = $1", [agent])
  await client.end()
  const delays: Array<number> = []
  for (let i = 0; i < 20; i++) {
    const id = ids[(i * 7919) % ids.length]!
    const trust = async () => JSON.stringify(((await (await fetch(`${reader}/products/${id}`)).json()) as { trust: unknown }).trust)
    const before = await trust()
    const cast = await fetch(`${writer}/vote`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-forwarded-for": `198.51.100.${i}` },
      // Up, as most of the vote benchmark's votes are: on a database earlier runs left, a product whose evidence is
      // settled holds a standing agent's vote against it (a reversal, docs/api.md), and its trust would not move.
      body: JSON.stringify({ entity_id: id, direction: "up" })
    })
    if (cast.status !== 201) throw new Error(`freshness vote answered ${cast.status}: ${await cast.text()}`)
    const started = performance.now()
    while ((await trust()) === before && performance.now() - started < 5_000) await sleep(5)
    delays.push(Math.round(performance.now() - started))
  }
  return delays
}

/**
 * `productdir-reconcile --check` on the database, as an operator runs it, the recount alone: its exit
 * status (0: every product's counters are its seed plus the ledger's counted votes; 1: drift). With
 * the integrity pass too it would also exit 1 for the storm's held votes (the burst hold at work: the
 * pass would count them), which is not drift; CROWD_DEFENSE=off leaves the pass out of the check.
 */
const reconcileCheck = (database: string): number =>
  spawnSync(process.execPath, [RECONCILE, "--check"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: database, CROWD_DEFENSE: "off" },
    stdio: "ignore"
  }).status ?? -1

/**
 * VACUUM of the tables a storm writes, before each storm (the API's and the baseline's alike), as autovacuum
 * does between storms on a server that runs it. This machine's server runs with autovacuum off (its CI
 * configuration), and every group of storm votes rewrites the product's row as a new version that only a
 * VACUUM reclaims (never a HOT update: changed_xid and trust_score are indexed). With those versions left,
 * the baseline's reads of the same tables between storms raised PostgreSQL's CPU per storm vote from 0.10 to
 * 0.30 ms over three rounds (3,452 then 2,988 then 2,622 votes/s); without the baseline's reads, or after a
 * VACUUM, it stayed at 0.09-0.11 ms (docs/benchmarks.md, "Issue 21 and 23 on a fast machine"). A storm's
 * figure should not depend on what the benchmark measured before it.
 */
const vacuumStormTables = async (database: string) => {
  const client = new pg.Client({ connectionString: database })
  await client.connect()
  try {
    await client.query("VACUUM products, votes, rate_buckets")
  } finally {
    await client.end()
  }
}

const cell = (f: Figures) => `${f.rps.toFixed(0)} req/s, p50 ${f.p50.toFixed(1)} / p99 ${f.p99.toFixed(1)} ms`

/** A measurement's figures and what each request cost in CPU: the server's, and PostgreSQL's. */
interface Sample extends Figures {
  /** Votes (or reads) answered with a 2xx a second: the requests that were not errors. */
  readonly okPerSecond: number
  readonly serverMs: number
  readonly postgresMs: number
}

/** What one vote costs the database, counted on the wire and in PostgreSQL's statistics. */
interface Anatomy {
  readonly votes: number
  readonly statements: number
  readonly roundTrips: number
  readonly transactions: number
  readonly walFlushes: number
}

const databaseStats = async (database: string) => {
  const client = new pg.Client({ connectionString: database })
  await client.connect()
  const row = (
    await client.query(
      "SELECT xact_commit + xact_rollback AS transactions, (SELECT wal_sync FROM pg_stat_wal) AS wal_flushes FROM pg_stat_database WHERE datname = current_database()"
    )
  ).rows[0]
  await client.end()
  return { transactions: Number(row.transactions), walFlushes: Number(row.wal_flushes) }
}

/**
 * One server's votes through a counting proxy (wire-count.ts), untimed: the
 * statements and round trips it sends per vote, and the transactions and WAL
 * flushes PostgreSQL counted meanwhile. The server is started, left idle long
 * enough for its backends to report their start-up statistics, loaded, and
 * stopped (its backends report the rest as they exit) before the figures are read.
 */
const anatomy = async (
  database: string,
  start: (databaseUrl: string) => Promise<ChildProcess>,
  votes: NodeJS.ProcessEnv
): Promise<Anatomy> => {
  const target = new URL(database)
  const proxy = await startWireCounter({ host: target.hostname, port: Number(target.port || 5432) }, target.pathname.slice(1))
  const server = await start(proxy.url)
  await sleep(11_000)
  const before = { ...proxy.counts, ...(await databaseStats(database)) }
  const figures = await runWrk({ url: url(PORTS.counted), script: "vote.lua", seconds: 5, connections: 8, threads: 1, env: votes })
  await stopServer(server)
  await sleep(1_000)
  const after = await databaseStats(database)
  await proxy.close()
  const per = (n: number) => n / figures.requests
  return {
    votes: figures.requests,
    statements: per(proxy.counts.statements - before.statements),
    roundTrips: per(proxy.counts.roundTrips - before.roundTrips),
    transactions: per(after.transactions - before.transactions),
    walFlushes: per(after.walFlushes - before.walFlushes)
  }
}

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
  const profiled = CPU_PROF === undefined ? {} : { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROF}` }
  const api = await startServer([], { ...apiEnv, ...profiled, PORT: String(PORTS.api) }, `${url(PORTS.api)}/readyz`, API_LAUNCHER)
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
  // What bounds a cached read below the ceiling: the same server writing each product's own record, then that
  // with what every productdir response carries (a request id, an access-log line). Their records are the API's own.
  const bodiesFile = join(dir, "bodies.ndjson")
  writeFileSync(bodiesFile, await recordsOf(url(PORTS.api), ids))
  const perRecord = await startServer(
    ["bench/src/ready-bytes-server.ts"],
    { PORT: String(PORTS.perRecord), BODIES: bodiesFile },
    url(PORTS.perRecord)
  )
  const sameBytes = await startServer(
    ["bench/src/ready-bytes-server.ts"],
    { PORT: String(PORTS.sameBytes), BODIES: bodiesFile, EXTRAS: "1" },
    url(PORTS.sameBytes)
  )

  const samples = new Map<string, Array<Sample>>()
  const anatomies: { api?: Anatomy; baseline?: Anatomy } = {}
  const rss: Array<number> = []
  let delays: Array<number> = []
  /** The exit status of each `productdir-reconcile --check` run after a storm. */
  const checks: Array<number> = []
  try {
    const keys = await registerAgents(url(PORTS.api))
    const keysFile = join(dir, "keys.txt")
    writeFileSync(keysFile, `${keys.join("\n")}\n`)
    console.log(`${keys.length} agents registered`)
    const stormId = ids[Math.floor(ids.length / 2)]!

    const servers = new Map<number, ChildProcess>([
      [PORTS.api, api],
      [PORTS.baseline, baseline],
      [PORTS.ceiling, ceiling],
      [PORTS.perRecord, perRecord],
      [PORTS.sameBytes, sameBytes]
    ])
    const measure = async (
      name: string,
      port: number,
      script: "read.lua" | "vote.lua",
      env: NodeJS.ProcessEnv,
      seconds = SECONDS,
      threads = THREADS
    ) => {
      const pid = servers.get(port)!.pid!
      const [server, postgres] = [cpuMillis(pid), postgresCpuMillis()]
      const figures = await runWrk({ url: url(port), script, seconds, connections: CONNECTIONS, threads, env })
      const sample = {
        ...figures,
        okPerSecond: (figures.requests - figures.errors) / seconds,
        serverMs: (cpuMillis(pid) - server) / figures.requests,
        postgresMs: (postgresCpuMillis() - postgres) / figures.requests
      }
      samples.set(name, [...(samples.get(name) ?? []), sample])
      console.log(
        `  ${name.padEnd(18)} ${cell(figures)}  errors ${figures.errors}  cpu/request: server ${sample.serverMs.toFixed(3)} ms, postgres ${sample.postgresMs.toFixed(3)} ms`
      )
    }
    const reads = { BENCH_IDS: idsFile }
    const pooled = { ...reads, BENCH_QUANTILES: "1" }
    const agentVotes = { BENCH_IDS: idsFile, BENCH_KEYS: keysFile }
    const baselineVotes = { BENCH_IDS: idsFile, BENCH_KEYS: "" }

    // Warm both servers (the API's cache fills as the baseline's buffers do), unmeasured.
    await runWrk({ url: url(PORTS.api), script: "read.lua", seconds: 10, connections: CONNECTIONS, threads: THREADS, env: reads })
    await runWrk({ url: url(PORTS.baseline), script: "read.lua", seconds: 5, connections: CONNECTIONS, threads: THREADS, env: reads })
    // And the same-bytes server, whose first slice would otherwise include its compiler's warm-up.
    if (ONLY.has("read")) {
      await runWrk({ url: url(PORTS.sameBytes), script: "read.lua", seconds: 5, connections: CONNECTIONS, threads: THREADS, env: reads })
    }

    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}`)
      // Alternate who goes first, so warm caches and drift favour neither.
      const pairs: Array<Array<() => Promise<void>>> = [
        ...(ONLY.has("read")
          ? [
              [() => measure("api read", PORTS.api, "read.lua", reads), () => measure("baseline read", PORTS.baseline, "read.lua", reads)],
              // The cached read's goal is set against the server writing the same bytes: measured beside it, in turn,
              // in short slices, so that each pair is seconds apart.
              // Each slice's latency distribution is kept, so that each side's p99 is that of all its slices pooled.
              ...Array.from({ length: SAME_BYTES_SLICES }, () => [
                () => measure("same-bytes read", PORTS.sameBytes, "read.lua", pooled, SLICE_SECONDS, SAME_BYTES_THREADS),
                () => measure("api read again", PORTS.api, "read.lua", pooled, SLICE_SECONDS, SAME_BYTES_THREADS)
              ])
            ]
          : []),
        ...(ONLY.has("vote")
          ? [
              [
                () => measure("api vote", PORTS.api, "vote.lua", agentVotes),
                () => measure("baseline vote", PORTS.baseline, "vote.lua", baselineVotes)
              ]
            ]
          : []),
        ...(ONLY.has("storm")
          ? [
              [
                async () => {
                  await vacuumStormTables(database)
                  await measure("api storm", PORTS.api, "vote.lua", { ...agentVotes, BENCH_STORM_ID: stormId })
                  // Every vote the API answered has committed: the ledger and the counters must agree now.
                  const status = reconcileCheck(database)
                  checks.push(status)
                  console.log(`  productdir-reconcile --check after the storm: exit ${status}`)
                },
                async () => {
                  await vacuumStormTables(database)
                  await measure("baseline storm", PORTS.baseline, "vote.lua", { ...baselineVotes, BENCH_STORM_ID: stormId })
                }
              ]
            ]
          : [])
      ]
      // Who goes first alternates from round to round, and from each pair to the next within a round.
      for (const [place, [first, then]] of pairs.entries()) {
        if ((round + place) % 2 === 1) {
          await first!()
          await then!()
        } else {
          await then!()
          await first!()
        }
      }
      if (ONLY.has("read")) {
        await measure("ceiling read", PORTS.ceiling, "read.lua", reads)
        await measure("per-record read", PORTS.perRecord, "read.lua", reads)
      }
    }

    delays = await freshness(database, url(PORTS.api), url(PORTS.second), ids)
    console.log(`freshness over 20 votes: ${delays.join(", ")} ms`)

    if (RSS_LOADS > 0 && ONLY.has("read") && ONLY.has("vote")) {
      rss.push(rssOf(api))
      console.log(`API RSS at rest: ${rss[0]} MB`)
      for (let i = 1; i <= RSS_LOADS; i++) {
        await Promise.all([
          runWrk({ url: url(PORTS.api), script: "read.lua", seconds: RSS_LOAD_SECONDS, connections: 28, threads: 1, env: reads }),
          runWrk({
            url: url(PORTS.api),
            script: "read.lua",
            seconds: RSS_LOAD_SECONDS,
            connections: 28,
            threads: 1,
            env: { ...reads, BENCH_ACCEPT_ENCODING: "gzip" }
          }),
          runWrk({ url: url(PORTS.api), script: "vote.lua", seconds: RSS_LOAD_SECONDS, connections: 8, threads: 1, env: agentVotes })
        ])
        await sleep(2_000)
        rss.push(rssOf(api))
        console.log(`API RSS after load ${i}: ${rss.at(-1)} MB`)
      }
    }
    // Alone on the database: the other servers' change feeds and refreshes would count as the votes' transactions.
    for (const child of [api, second, baseline, ceiling, perRecord, sameBytes]) await stopServer(child)
    if (ANATOMY) {
      console.log("counting what a vote sends to PostgreSQL (untimed)…")
      const counted = { PORT: String(PORTS.counted) }
      anatomies.api = await anatomy(
        database,
        (through) => startServer([], { ...apiEnv, ...counted, DATABASE_URL: through }, `${url(PORTS.counted)}/readyz`, API_LAUNCHER),
        agentVotes
      )
      anatomies.baseline = await anatomy(
        database,
        (through) =>
          startServer(["bench/src/baseline-server.ts"], { ...counted, DATABASE_URL: through }, `${url(PORTS.counted)}/products/${ids[0]}`),
        baselineVotes
      )
      console.log(`  api ${JSON.stringify(anatomies.api)}\n  baseline ${JSON.stringify(anatomies.baseline)}`)
    }
  } finally {
    for (const child of [api, second, baseline, ceiling, perRecord, sameBytes]) await stopServer(child)
  }

  const m = (name: string): Sample => {
    const list = samples.get(name) ?? []
    return {
      requests: list.reduce((n, f) => n + f.requests, 0),
      okPerSecond: median(list.map((f) => f.okPerSecond)),
      serverMs: median(list.map((f) => f.serverMs)),
      postgresMs: median(list.map((f) => f.postgresMs)),
      rps: median(list.map((f) => f.rps)),
      p50: median(list.map((f) => f.p50)),
      p99: median(list.map((f) => f.p99)),
      errors: list.reduce((n, f) => n + f.errors, 0)
    }
  }
  /**
   * A pair's ratio in each round, the two measured side by side, and the median of those ratios (the goal's
   * measure: drift between rounds, the machine slowing for everything at once, cancels within a pair). The
   * medians' own ratio is printed beside it.
   */
  const paired = (a: string, b: string, of: (f: Sample) => number) => {
    const xs = samples.get(a) ?? []
    const ys = samples.get(b) ?? []
    const each = xs.map((x, i) => of(x) / of(ys[i]!))
    return { each, median: median(each) }
  }
  const ratioCell = (r: { each: ReadonlyArray<number>; median: number }) =>
    `${r.median.toFixed(2)}× (${r.each.length > ROUNDS ? "slices" : "rounds"} ${r.each.map((x) => x.toFixed(2)).join(" / ")})`
  /** Two measurements compared: their req/s and p99 ratios by pair, and the two cells of a table's row that print them. */
  const compare = (a: string, b: string) => {
    const rps = paired(a, b, (f) => f.rps)
    const p99 = paired(a, b, (f) => f.p99)
    return { rps, p99, cells: `${ratioCell(rps)}; of the medians ${(m(a).rps / m(b).rps).toFixed(2)}× | ${ratioCell(p99)}` }
  }
  const row = (label: string, a: string, b: string, target: string) =>
    `| ${label} | ${cell(m(a))} | ${cell(m(b))} | ${compare(a, b).cells} | ${target} |`
  const measured = (name: string) => (samples.get(name) ?? []).length > 0
  const storm = m("api storm")
  const baseStorm = m("baseline storm")
  const stormGoal = `≥ ${STORM_GOAL.ratio}× req/s and ≥ ${STORM_GOAL.votesPerSecond.toLocaleString("en")} counted votes/s; reconcile --check exit 0`
  const stormRatios = compare("api storm", "baseline storm")
  const stormRow = `| vote storm: one product, ${CONNECTIONS} connections | ${cell(storm)}; ${storm.okPerSecond.toFixed(0)} counted votes/s | ${cell(baseStorm)} | ${stormRatios.cells} | ${stormGoal}: ${
    stormRatios.rps.median >= STORM_GOAL.ratio && storm.okPerSecond >= STORM_GOAL.votesPerSecond && checks.every((c) => c === 0)
      ? "met"
      : "not met"
  } (reconcile exit ${checks.join(", ") || "not run"}) |`
  const ceilingRead = m("ceiling read")
  // The goal's measure: the API against a node:http server writing the same bytes (each product's own record,
  // the same headers, a request id, the same access-log line), the two measured one after the other, in turn.
  const readAgain = m("api read again")
  const sameBytesRead = m("same-bytes read")
  const same = compare("api read again", "same-bytes read")
  // The p99 of every slice's latencies together, each side's: a 2 s slice's own p99 is one hiccup of the machine away
  // from ten times its neighbour's, and the median of their ratios followed the hiccups.
  const p99Of = (name: string) => pooledPercentile(samples.get(name) ?? [], 99)
  const pooledP99 = { api: p99Of("api read again"), sameBytes: p99Of("same-bytes read") }
  const pooledP99Ratio = pooledP99.api / pooledP99.sameBytes
  const sameBytesRow = `| cached read against a server writing the same bytes (GET /products/{id} ÷ ready-bytes server, each record's own bytes and headers, a request id, an access-log line) | ${cell(readAgain)}; p99 of all slices ${pooledP99.api.toFixed(2)} ms | ${cell(sameBytesRead)}; p99 of all slices ${pooledP99.sameBytes.toFixed(2)} ms | ${same.cells}; of all slices pooled ${pooledP99Ratio.toFixed(2)}× | ≥ ${SAME_BYTES_GOAL}× req/s (the slices' median), p99 ≤ 1× (all slices pooled): ${
    same.rps.median >= SAME_BYTES_GOAL && pooledP99Ratio <= 1 ? "met" : "not met"
  } |`
  const ceilingRow = row(
    "cached read against the ceiling (GET /products/{id} ÷ one ready-made record for every id)",
    "api read",
    "ceiling read",
    "(no goal: what bounds it, below)"
  )
  const ms = (x: number) => x.toFixed(3)
  // What bounds a cached read: each step from the ceiling towards the API, as a share of the ceiling.
  const bound = (label: string, name: string) => {
    const f = m(name)
    return `| ${label} | ${cell(f)} | ${ms(f.serverMs)} | ${(f.rps / ceilingRead.rps).toFixed(2)}× |`
  }
  const boundsTable = [
    "| server (GET /products/{random id}) | figures | its CPU per read (ms) | of the ceiling |",
    "|---|---|---|---|",
    bound("the ceiling: one ready-made record for every id", "ceiling read"),
    bound("each product's own record, by its id", "per-record read"),
    bound("and a request id, an access-log line, productdir's headers: the same bytes as the API", "same-bytes read"),
    bound("productdir's cached read", "api read")
  ].join("\n")
  const table = [
    "| measurement | productdir | baseline | req/s ratio | p99 ratio | target |",
    "|---|---|---|---|---|---|",
    ...(measured("api read")
      ? [row("GET /products/{id}", "api read", "baseline read", "≥ 3× req/s, p99 ≤ 1×"), sameBytesRow, ceilingRow]
      : []),
    ...(measured("api vote") ? [row("POST /vote (registered agents, distinct voters)", "api vote", "baseline vote", "≥ 0.8× req/s")] : []),
    ...(measured("api storm") ? [stormRow] : [])
  ].join("\n")
  const costRow = (label: string, api: Sample, base: Sample) =>
    `| ${label} | ${ms(api.serverMs)} | ${ms(api.postgresMs)} | ${ms(base.serverMs)} | ${ms(base.postgresMs)} |`
  const costs = [
    "| measurement | productdir: API | productdir: PostgreSQL | baseline: server | baseline: PostgreSQL |",
    "|---|---|---|---|---|",
    // Only what this run measured (BENCH_ONLY): a row of nothing would print NaN.
    ...(measured("api read") ? [costRow("GET /products/{id}", m("api read"), m("baseline read"))] : []),
    ...(measured("api vote") ? [costRow("POST /vote", m("api vote"), m("baseline vote"))] : []),
    ...(measured("api storm") ? [costRow("vote storm", m("api storm"), m("baseline storm"))] : [])
  ].join("\n")
  const per = (x: number | undefined) => (x === undefined ? "n/a" : x.toFixed(2))
  const anatomyRow = (label: string, a: Anatomy | undefined) =>
    `| ${label} | ${per(a?.statements)} | ${per(a?.roundTrips)} | ${per(a?.transactions)} | ${per(a?.walFlushes)} | ${a?.votes ?? 0} |`
  const anatomyTable = [
    "| one vote | statements | round trips | transactions | WAL flushes | votes counted |",
    "|---|---|---|---|---|---|",
    anatomyRow("productdir", anatomies.api),
    anatomyRow("baseline", anatomies.baseline)
  ].join("\n")
  const freshnessLine = `max ${Math.max(...delays)} ms, median ${median(delays)} ms over ${delays.length} votes (target: max ≤ 1,000 ms)`
  const rssLine =
    rss.length > 0
      ? `${rss.join(" → ")} MB (at rest, then after each of ${RSS_LOADS} loads of ${RSS_LOAD_SECONDS} s: reads at 56 connections, half of them accepting gzip, and votes at 8 at once; target ≤ 300 MB and flat)`
      : "not measured (BENCH_RSS_LOADS=0)"
  const errors = ["api read", "baseline read", "api vote", "baseline vote", "api storm", "baseline storm"]
    .map((name) => `${name} ${m(name).errors}`)
    .join(", ")
  console.log(
    `\n${table}\n\nCPU per request (ms):\n${costs}\n\n${anatomyTable}\n\nwhat bounds a cached read:\n${boundsTable}\n\nceiling (ready-made bytes): ${cell(m("ceiling read"))}\nfreshness: ${freshnessLine}\nRSS: ${rssLine}\n`
  )

  if (!(["read", "vote", "storm"].every((name) => ONLY.has(name)) && ANATOMY)) {
    console.log("a partial run (BENCH_ONLY or BENCH_ANATOMY=0): docs/benchmarks.md is left as it is")
    return
  }
  const wrkVersion = execFileSync("sh", ["-c", "wrk --version 2>&1 | head -1 || true"]).toString().trim()
  writeSection(
    "HTTP API: reads, votes, freshness and memory against a hand-written server",
    `
Command: \`npm run bench:api\`. ${ids.length.toLocaleString("en")} generated products in PostgreSQL on 127.0.0.1:5432; load from
\`${wrkVersion}\` in its own process, \`wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s --latency\` (scripts in \`bench/wrk/\`), ${ROUNDS}
rounds in alternating order, medians shown. Machine: ${cpus().length} cores, ${new Date().toISOString().slice(0, 10)}; the servers, PostgreSQL
and wrk share them. The API runs as \`npm start\` does (\`apps/api/bin/productdir-api.js\`: its heap flags, access log at info, rate limits on in
PostgreSQL but too high to refuse, \`CACHE_BYTES\` at its 96 MiB default, \`TRUST_PROXY=1\`). The baseline is
\`bench/src/baseline-server.ts\`: node:http + node-postgres, one query per read, the same vote transaction, a voter id
in the body, no proof and no limits. Errors (non-2xx and socket): ${errors}.

${table}

Where a request's time goes: CPU per request in ms (medians of the rounds above; PostgreSQL is every process of the
server, from \`/proc\`):

${costs}

What one vote sends to PostgreSQL, counted in an untimed run (\`wrk -t1 -c8 -d5s\`, a fresh server process behind
a proxy that counts protocol messages, \`bench/src/wire-count.ts\`, alone on the database; transactions and WAL
flushes from \`pg_stat_database\` and \`pg_stat_wal\`, so they include the API's change-feed polls, four a second, and
its refreshes of reads it holds, none here):

${anatomyTable}

- The cached read's goal is set against a node:http server writing the same bytes as the API
  (\`bench/src/ready-bytes-server.ts\` with \`EXTRAS=1\`: each product's own record with the etag and cache-control the
  API sent for it, a request id, the same access-log line, as cheaply as node:http allows), measured in turn with
  the API in ${SAME_BYTES_SLICES} alternating slices of ${SLICE_SECONDS} s a round ("api read again" beside "same-bytes
  read", \`wrk -t${SAME_BYTES_THREADS}\`: the server a core of its own, wrk the other; its req/s ratio is the median of every
  slice's pair, its p99 that of each side's slices pooled, from 1,000 quantiles of each slice weighted by its requests). The ceiling: the same server answering every
  request with one ready-made record, ${cell(m("ceiling read"))}. What bounds the cached read below it, one step at a
  time towards the API, in the same rounds:

${boundsTable}

- Freshness: a vote through one API process, then its product read on a second one until it shows the vote:
  ${freshnessLine}.
- RSS of the API: ${rssLine}.
- The storm: 2,000 agents on one product, each turning its vote over every time (after its first vote every vote
  is a change: the counters move on every one); the baseline's voters are new each time. After each of the API's
  storms, \`CROWD_DEFENSE=off productdir-reconcile --check\` (the recount alone: the integrity pass would also exit 1
  for the storm's held votes, which is the burst hold at work, not drift): exit ${checks.join(", ")}. Counted votes/s:
  the votes answered 2xx a second. Before each storm, the API's and the baseline's, the tables it writes are
  vacuumed, as autovacuum would between storms (this machine's server runs without it: \`vacuumStormTables\`).
- What bounds the storm: every vote on the product locks its row, so votes on one product are serial in PostgreSQL
  whatever the client. The API casts the votes that arrive while one of its calls is in flight together, in the next
  call (\`productdir_cast_votes\`: one commit, one lock and one write of each product's row; docs/database.md, "Votes
  in groups"); the baseline holds the lock across its transaction's round trips, one vote at a time. With
  the lock out of the way, what bounds the API's storm is its own CPU per request (HTTP, the proof of the agent, the
  response), on a machine whose two cores it shares with PostgreSQL and wrk.
- Where a vote's time goes: one statement per vote when votes come one at a time, and one per group when they come
  together, plus the check of an agent's key against the registry, once per key every 10 s (of 2,000 agents voting
  for 5 s, most are seen for the first time). One WAL flush per call: the votes that arrive while a call is in flight
  on the API's shared connection commit together in the next, as the baseline's eight connections share flushes.
`
  )
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
