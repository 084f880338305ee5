/**
 * Benchmark of the crowd defense's integrity pass at scale (packages/usecases/src/integrity/IntegrityPass.ts
 * on PostgreSQL): a synthetic ledger of 10,000,000 votes, all inside the pass's 8-day window, shaped like
 * the one of ../shared/notes/crowd-defense.md section 1 (voters with lognormal votes each, power-law
 * product popularity, a daily cycle; planted lockstep rings, fast and slow, with camouflage votes; viral
 * products and floods of fresh addresses whose burst votes are held, ~1 % held in all). Runs
 * `IntegrityPass.runPass({ apply: false })` (the check), `{ apply: true }` from the same pristine ledger
 * (the first apply: groups written, votes discounted, held votes counted, standing settled), and the
 * apply again over the ledger it left (nothing to change), each in a process of its own under
 * `/usr/bin/time -v`. Prints votes read, groups found (and the planted rings they caught), the process
 * wall time of each (median of the rounds) and the peak RSS, beside the goals (≤ 30 s, ≤ 300 MB); then
 * where the time and memory go: the pass's SQL statements one by one (wall, and the CPU of the pass's
 * process while each ran: parsing what it sent), the window read alone and each detection step alone (in
 * another process, with the peak RSS after each). Writes the figures into docs/benchmarks.md at the
 * default size only.
 *
 * The ledger is generated once in the database productdir_bench_crowd_pass (…_<votes> at another size;
 * BENCH_POSTGRES's server, ~3.6 GB at the default) and reused while it is within the window (a day: its
 * votes span the 7 days before it was generated); each round first puts back the state it was generated
 * in (held votes held, no groups, standing as it was, counters to match).
 *
 *   cd bench && ../node_modules/.bin/node src/crowd-pass.ts      # node 24 (strips types)
 *   BENCH_VOTES=1000000 ../node_modules/.bin/node src/crowd-pass.ts
 *   BENCH_ROUNDS=3 BENCH_FRESH=1 …                                # rounds (default 2); regenerate the ledger
 *   BENCH_DATABASE=<name> …                                       # another database (a copy of the ledger, for another commit)
 *
 * Its own children: `node src/crowd-pass.ts --child <migrate|check|apply|profile> <database url>`.
 */
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Redacted, Tracer } from "effect"
import pg from "pg"
import { external } from "../../apps/reconcile/rolldown.config.ts"
import { IntegrityLedger } from "@productdir/domain"
import { layerPostgres } from "@productdir/store-postgres"
import { IntegrityPass, type PassReport } from "@productdir/usecases"
import { expand, findLockstep, findOverlap } from "@productdir/usecases/integrity/coordinatedGroups"
import { voterRanks } from "@productdir/usecases/integrity/ranks"
import { releases } from "@productdir/usecases/integrity/release"
import { postgresCpuMillis } from "./cpu.ts"
import { ensureDatabase, median, writeSection } from "./lib.ts"

const DEFAULT_VOTES = 10_000_000
const VOTES = Number(process.env.BENCH_VOTES ?? DEFAULT_VOTES)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
/** A database per size, so that a quick try leaves the full ledger in place. */
const DATABASE =
  process.env.BENCH_DATABASE ?? (VOTES === DEFAULT_VOTES ? "productdir_bench_crowd_pass" : `productdir_bench_crowd_pass_${VOTES}`)
const GOAL_SECONDS = 30
const GOAL_RSS_MB = 300
/** The ledger's votes span this many seconds before it was generated: inside the 8-day window for a day after. */
const SPAN = 7 * 86_400

const n = (x: number) => Math.round(x).toLocaleString("en")
const s1 = (ms: number) => (ms / 1000).toFixed(1)
const mb = (bytes: number) => bytes / 1024 / 1024

// ---------------------------------------------------------------------------------------------------
// The child: one pass (or the window and the detection steps alone) in a process of its own.
// ---------------------------------------------------------------------------------------------------

interface StatementTime {
  readonly text: string
  readonly calls: number
  readonly ms: number
  /** CPU of this process while the statement ran (receiving and parsing its rows), ms. */
  readonly cpuMs: number
  /** How much the process's peak RSS rose while the statement ran, MB. */
  readonly peakRiseMb: number
}

interface Step {
  readonly step: string
  readonly ms: number
  readonly cpuMs: number
  /** Peak RSS of the process so far, and RSS now (after a full GC where node runs with --expose-gc), MB. */
  readonly peakMb: number
  readonly rssMb: number
  /** What is left after the step (after the GC): the JS heap, and the typed arrays' buffers, MB. */
  readonly heapMb: number
  readonly buffersMb: number
}

interface ChildResult {
  readonly mode: string
  readonly layerMs: number
  readonly runMs: number
  readonly report?: PassReport
  readonly statements: ReadonlyArray<StatementTime>
  readonly steps: ReadonlyArray<Step>
  readonly window?: {
    readonly votes: number
    readonly products: number
    readonly voters: number
    readonly networks: number
    readonly columnMb: number
  }
}

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** A tracer that keeps the wall and CPU time of every SQL statement, by its text. */
const statementTracer = (into: Map<string, { calls: number; ms: number; cpuMs: number; peakRiseMb: number }>) =>
  Tracer.make({
    span(options) {
      const cpuAtStart = cpuMs()
      const peakAtStart = process.resourceUsage().maxRSS
      const span = new Tracer.NativeSpan(options)
      const end = span.end.bind(span)
      span.end = (endTime, exit) => {
        end(endTime, exit)
        const text = span.attributes.get("db.query.text")
        if (typeof text !== "string") return
        const key = text.replace(/\s+/g, " ").trim()
        const seen = into.get(key) ?? { calls: 0, ms: 0, cpuMs: 0, peakRiseMb: 0 }
        seen.calls++
        seen.ms += Number(endTime - options.startTime) / 1e6
        seen.cpuMs += cpuMs() - cpuAtStart
        seen.peakRiseMb += (process.resourceUsage().maxRSS - peakAtStart) / 1024
        into.set(key, seen)
      }
      return span
    }
  })

const child = async (mode: string, url: string) => {
  const layer = layerPostgres(Redacted.make(url), { parallelQueries: true })
  const statements = new Map<string, { calls: number; ms: number; cpuMs: number; peakRiseMb: number }>()
  const steps: Array<Step> = []
  const started = performance.now()
  let last = { at: performance.now() - process.uptime() * 1000, cpu: 0 }
  const mark = (step: string) => {
    const now = { at: performance.now(), cpu: cpuMs() }
    const peakMb = process.resourceUsage().maxRSS / 1024
    // The profile runs with --expose-gc: what a step leaves behind, not the garbage it made (that is in its peak).
    globalThis.gc?.()
    const memory = process.memoryUsage()
    steps.push({
      step,
      ms: now.at - last.at,
      cpuMs: now.cpu - last.cpu,
      peakMb,
      rssMb: mb(memory.rss),
      heapMb: mb(memory.heapUsed),
      buffersMb: mb(memory.arrayBuffers)
    })
    last = { at: performance.now(), cpu: cpuMs() }
  }
  let layerMs = 0
  let readyAt = started
  const ready = Effect.sync(() => {
    layerMs = process.uptime() * 1000
    readyAt = performance.now()
    statements.clear()
    mark("node started, modules loaded, store layer built")
  })
  let result: Omit<ChildResult, "layerMs" | "statements" | "steps">
  if (mode === "migrate") {
    await Effect.runPromise(ready.pipe(Effect.provide(layer)))
    result = { mode, runMs: 0 }
  } else if (mode === "check" || mode === "apply") {
    const report = await Effect.runPromise(
      ready.pipe(
        Effect.andThen(IntegrityPass.runPass({ apply: mode === "apply" })),
        Effect.provide(layer),
        Effect.withTracer(statementTracer(statements))
      )
    )
    mark("pass")
    result = { mode, runMs: performance.now() - readyAt, report }
  } else if (mode === "profile") {
    // The window read alone, then each detection step alone, as the pass runs them (its merge of the two
    // methods' groups is its own: expand here takes both lists as they are).
    const window = await Effect.runPromise(
      ready.pipe(
        Effect.andThen(
          Effect.gen(function* () {
            const ledger = yield* IntegrityLedger
            return yield* ledger.window(new Date(Date.now() - IntegrityPass.DEFAULT_PASS.windowSeconds * 1000))
          })
        ),
        Effect.provide(layer),
        Effect.withTracer(statementTracer(statements))
      )
    )
    mark("window read (SQL, transfer, columns)")
    const lockstep = findLockstep(window)
    mark(`findLockstep (${lockstep.length} groups)`)
    const overlap = findOverlap(window, voterRanks(window))
    mark(`findOverlap (${overlap.length} groups)`)
    const found = expand(window, [...lockstep, ...overlap])
    mark("expand")
    const grouped = new Set(found.flatMap((g) => g.votes))
    const released = releases(window, grouped)
    mark(`releases (${released.length} held votes to count)`)
    // The networks the window keeps (of products with a held vote) are not counted: a few MB.
    const columns = [window.starts, window.voter, window.seconds, window.counting, window.direction, window.cleared]
    result = {
      mode,
      runMs: performance.now() - readyAt,
      window: {
        votes: window.voter.length,
        products: window.products.length,
        voters: window.voters.length,
        networks: window.networks.length,
        columnMb: mb(columns.reduce((sum, c) => sum + c.byteLength, 0))
      }
    }
  } else throw new Error(`unknown child mode ${mode}`)
  const out: ChildResult = {
    ...result,
    layerMs,
    steps,
    statements: [...statements].map(([text, t]) => ({ text, ...t }))
  }
  process.stdout.write(`\n@@result ${JSON.stringify(out)}\n`)
  // The pool's idle connections would keep the process alive a while: the result is out.
  process.exit(0)
}

// ---------------------------------------------------------------------------------------------------
// The parent: the ledger, the rounds, the report.
// ---------------------------------------------------------------------------------------------------

interface Run {
  readonly wallMs: number
  readonly rssMb: number
  readonly userMs: number
  readonly sysMs: number
  readonly postgresCpuMs: number
  /** The machine's 1-minute load average as the run ended: other work on it slows the pass down. */
  readonly load: number
  readonly result: ChildResult
}

/**
 * The V8 flags and the environment productdir-reconcile runs the pass with: its launcher's shebang (the heap
 * caps that keep its RSS flat, glibc's mmap threshold). A child without them measured node's defaults, whose young generation alone is twice the
 * launcher's and whose old space lets garbage pile up to gigabytes: not the process an operator runs.
 */
const launcher = (): { readonly flags: ReadonlyArray<string>; readonly env: Record<string, string> } => {
  const path = new URL("../../apps/reconcile/bin/productdir-reconcile.js", import.meta.url)
  const words = readFileSync(path, "utf8").split("\n", 1)[0]!.split(/\s+/)
  const env = Object.fromEntries(words.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => word.split("=", 2) as [string, string]))
  return { flags: words.filter((word) => word.startsWith("--")), env }
}

/**
 * The children run as productdir-reconcile does: one tree-shaken bundle (apps/reconcile/rolldown.config.ts, the
 * same externals), here of this file, built once a run into bench/dist/. Run as its modules, a child held ~40 MB
 * more than the CLI (effect's barrel loads every module of effect) and 18 MB more for stripping their types.
 */
const bundleChild = async (): Promise<string> => {
  const dir = fileURLToPath(new URL("../dist/crowd-pass/", import.meta.url))
  // Imported here, and left out of the bundle: the children never load the bundler.
  const { build } = await import("rolldown")
  await build({
    input: import.meta.filename,
    platform: "node",
    external: [...external, /^rolldown(\/|$)/],
    output: { dir, format: "esm" },
    logLevel: "warn"
  })
  return join(dir, "crowd-pass.js")
}

let childScript = import.meta.filename

const runChild = (mode: string, url: string, nodeFlags: ReadonlyArray<string> = []): Run => {
  const pgBefore = postgresCpuMillis()
  const started = performance.now()
  const { flags, env } = launcher()
  const run = spawnSync("/usr/bin/time", ["-v", process.execPath, ...flags, ...nodeFlags, childScript, "--child", mode, url], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024
  })
  const wallMs = performance.now() - started
  const postgresCpuMs = postgresCpuMillis() - pgBefore
  const line = run.stdout.split("\n").find((l) => l.startsWith("@@result "))
  if (run.status !== 0 || line === undefined)
    throw new Error(`child ${mode} failed (${run.status}): ${run.stdout.slice(-2000)}\n${run.stderr.slice(-4000)}`)
  const field = (re: RegExp) => Number(re.exec(run.stderr)?.[1] ?? Number.NaN)
  return {
    wallMs,
    rssMb: field(/Maximum resident set size \(kbytes\): (\d+)/) / 1024,
    userMs: field(/User time \(seconds\): ([\d.]+)/) * 1000,
    sysMs: field(/System time \(seconds\): ([\d.]+)/) * 1000,
    postgresCpuMs,
    load: loadavg()[0]!,
    result: JSON.parse(line.slice("@@result ".length)) as ChildResult
  }
}

interface Meta {
  readonly votes: number
  readonly generated_at: Date
  readonly seconds: number
  readonly products: number
  readonly voters: number
  readonly agents: number
  readonly rings: number
  readonly ring_members: number
  readonly ring_votes: number
  readonly held: number
}

const readMeta = async (client: pg.Client): Promise<Meta | undefined> => {
  try {
    const rows = (await client.query<Meta>("SELECT * FROM bench_meta")).rows
    const meta = rows[0]
    if (meta === undefined) return undefined
    return Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, k === "generated_at" ? v : Number(v)])) as unknown as Meta
  } catch {
    return undefined
  }
}

/** Deterministic uniforms in [0, 1) from (i, seed), a time of day with an evening peak, a voter's key: the generator's SQL. */
const FUNCTIONS = `
  CREATE OR REPLACE FUNCTION bench_u(i bigint, seed int) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
    $$ SELECT (((hashint8extended(i, seed) >> 11) & 9007199254740991)::float8 + 0.5) / 9007199254740992.0 $$;
  CREATE OR REPLACE FUNCTION bench_offset(i bigint) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT 86400 * (floor(7 * bench_u(i, 31)) + CASE WHEN bench_u(i, 32) < 0.7 THEN bench_u(i, 33) ELSE x - floor(x) END)
    FROM (SELECT 10.75 + 0.125 * sqrt(-2 * ln(bench_u(i, 33))) * cos(2 * pi() * bench_u(i, 34)) AS x) d $$;
  CREATE OR REPLACE FUNCTION bench_voter(v bigint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
    $$ SELECT CASE WHEN bench_u(v, 13) < 0.55 THEN 'agent:' || md5('a' || v)::uuid ELSE 'ip:' || md5('i' || v) END $$;`

const generate = async (client: pg.Client) => {
  const started = performance.now()
  const scale = VOTES / DEFAULT_VOTES
  const products = Math.max(1_000, Math.round(VOTES / 10))
  const voters = Math.max(100, Math.round(VOTES / 50))
  const rings = Math.max(4, Math.round(25 * scale))
  const virals = Math.max(2, Math.round(10 * scale))
  const floods = Math.max(2, Math.round(8 * scale))
  const step = async (label: string, text: string, values: ReadonlyArray<unknown> = []) => {
    const t = performance.now()
    const result = await client.query(text, [...values])
    const rows = Array.isArray(result) ? 0 : (result.rowCount ?? 0)
    console.log(`  ${label}: ${s1(performance.now() - t)} s${rows > 0 ? ` (${n(rows)} rows)` : ""}`)
    return rows
  }
  console.log(
    `generating the ledger: ${n(VOTES)} votes, ${n(products)} products, ~${n(voters)} voters, ${rings} rings, ${virals} viral products, ${floods} floods…`
  )
  await client.query("TRUNCATE products, agents, vote_groups, rate_buckets CASCADE")
  await client.query(
    "DROP TABLE IF EXISTS bench_meta, bench_voters, bench_rings, bench_ring_voters, bench_ring_targets, bench_virals, bench_floods, bench_held, bench_standing"
  )
  await client.query(FUNCTIONS)
  await client.query("SET work_mem = '256MB'; SET maintenance_work_mem = '1GB'; SET synchronous_commit = off")
  const t0 = (await client.query<{ t0: Date }>("SELECT date_trunc('second', now()) AS t0")).rows[0]!.t0
  const start = new Date(t0.getTime() - SPAN * 1000)
  await step(
    "products",
    `INSERT INTO products (id, slug, name, name_key, category, content)
     SELECT md5('p' || r)::uuid, 'bench-' || r, 'Product ' || r, 'product ' || r, 'Bench', '{}'::jsonb FROM generate_series(0, $1::int - 1) r`,
    [products]
  )
  // The votes below name existing products and agents by construction: no foreign-key check per row.
  await client.query("SET session_replication_role = replica")

  // Rings: 80 % fast (each target within one hour; accounts 0.5-3 days old, no standing), 20 % slow
  // (over the whole week; 7-21 days old, with standing); 10-60 members, 5-20 targets (30 % among the
  // top 1,000), participation 0.85, 2-5 networks each, 5-40 camouflage votes per member.
  await step(
    "rings",
    `CREATE TABLE bench_rings AS
     SELECT g, (g % 5) <> 4 AS fast, 10 + floor(51 * bench_u(g, 101))::int AS members, 5 + floor(16 * bench_u(g, 102))::int AS targets,
       2 + floor(4 * bench_u(g, 103))::int AS nets
     FROM generate_series(0, $1::int - 1) g`,
    [rings]
  )
  await client.query(
    `CREATE TABLE bench_ring_voters AS
     SELECT r.g AS ring, j, x.id, 'agent:' || x.id AS voter, md5('rn' || r.g || ':' || (j % r.nets)) AS net, r.fast,
       $1::timestamptz - CASE WHEN r.fast THEN 0.5 + 2.5 * bench_u(r.g * 1000 + j, 104) ELSE 7 + 14 * bench_u(r.g * 1000 + j, 104) END * interval '1 day' AS created_at
     FROM bench_rings r CROSS JOIN LATERAL generate_series(0, r.members - 1) j CROSS JOIN LATERAL (SELECT md5('r' || r.g || ':' || j)::uuid AS id) x`,
    [t0]
  )
  await client.query(
    `CREATE TABLE bench_ring_targets AS
     SELECT r.g AS ring, t, CASE WHEN bench_u(k, 105) < 0.3 THEN floor(1000 * bench_u(k, 106)) ELSE floor($1::int * (bench_u(k, 106) ^ 2)) END::bigint AS rank,
       bench_u(k, 107) * ($2::int - 3600) AS hour_at
     FROM bench_rings r CROSS JOIN LATERAL generate_series(0, r.targets - 1) t CROSS JOIN LATERAL (SELECT r.g * 1000 + t AS k) x`,
    [products, SPAN]
  )
  await client.query(
    `INSERT INTO agents (id, kind, name, key_hash, key_hint, created_at, standing_since)
     SELECT id, 'registered', 'bench ring agent ' || ring || ':' || j, md5('rk' || id), 'bench', created_at,
       CASE WHEN fast THEN NULL ELSE created_at + interval '3 days' END
     FROM bench_ring_voters`
  )
  const ringVotes = await step(
    "ring votes on their targets",
    `INSERT INTO votes (product_id, voter, direction, created_at, updated_at, counting, network)
     SELECT md5('p' || t.rank)::uuid, m.voter, 'up', x.ts, x.ts, CASE WHEN r.fast AND bench_u(k, 203) < 0.5 THEN 'held' ELSE 'counted' END, m.net
     FROM bench_rings r JOIN bench_ring_targets t ON t.ring = r.g JOIN bench_ring_voters m ON m.ring = r.g
     CROSS JOIN LATERAL (SELECT (r.g::bigint * 1000 + m.j) * 1000 + t.t AS k) kk
     CROSS JOIN LATERAL (SELECT $1::timestamptz + CASE WHEN r.fast THEN t.hour_at + 3600 * bench_u(k, 201) ELSE $2::int * bench_u(k, 201) END * interval '1 second' AS ts) x
     WHERE bench_u(k, 202) < 0.85
     ON CONFLICT DO NOTHING`,
    [start, SPAN]
  )
  const camouflage = await step(
    "ring camouflage votes",
    `INSERT INTO votes (product_id, voter, direction, created_at, updated_at, counting, network)
     SELECT md5('p' || floor($2::int * (bench_u(k, 211) ^ 2))::bigint)::uuid, m.voter, CASE WHEN bench_u(k, 212) < 0.8 THEN 'up' ELSE 'down' END,
       x.ts, x.ts, 'counted', m.net
     FROM bench_ring_voters m CROSS JOIN LATERAL generate_series(0, 4 + floor(36 * bench_u(m.ring * 1000 + m.j, 210))::int) c
     CROSS JOIN LATERAL (SELECT (m.ring::bigint * 1000 + m.j) * 1000 + c AS k) kk
     CROSS JOIN LATERAL (SELECT $1::timestamptz + $3::int * bench_u(k, 213) * interval '1 second' AS ts) x
     ON CONFLICT DO NOTHING`,
    [start, products, SPAN]
  )

  // Viral products: 2,000-15,000 fans (scaled), 85 % within 6 hours (70 % of those held by the burst
  // guard), 70 % of the fans voters of the ledger, 30 % newcomers.
  await client.query(
    `CREATE TABLE bench_virals AS
     SELECT k, floor($1::int * (bench_u(k, 301) ^ 2))::bigint AS rank, greatest(50, round((2000 + 13000 * bench_u(k, 302)) * $2::float8))::int AS fans,
       ($3::int - 6 * 3600) * bench_u(k, 303) AS at
     FROM generate_series(0, $4::int - 1) k`,
    [products, scale, SPAN, virals]
  )
  const viralVotes = await step(
    "viral votes",
    `INSERT INTO votes (product_id, voter, direction, created_at, updated_at, counting, network)
     SELECT md5('p' || w.rank)::uuid,
       CASE WHEN bench_u(q, 311) < 0.7 THEN bench_voter(floor($2::int * bench_u(q, 312))::bigint) ELSE 'ip:' || md5('f' || q) END,
       CASE WHEN bench_u(q, 313) < 0.95 THEN 'up' ELSE 'down' END, x.ts, x.ts,
       CASE WHEN b.burst AND bench_u(q, 314) < 0.7 THEN 'held' ELSE 'counted' END,
       md5('n' || floor(bench_u(q, 315) * $2::int * 0.7)::bigint)
     FROM bench_virals w CROSS JOIN LATERAL generate_series(0, w.fans - 1) j
     CROSS JOIN LATERAL (SELECT w.k::bigint * 1000000 + j AS q) qq
     CROSS JOIN LATERAL (SELECT bench_u(q, 316) < 0.85 AS burst) b
     CROSS JOIN LATERAL (SELECT $1::timestamptz + (w.at + CASE WHEN b.burst THEN 6 * 3600 * bench_u(q, 317) ELSE ($3::int - w.at) * bench_u(q, 317) END) * interval '1 second' AS ts) x
     ON CONFLICT DO NOTHING`,
    [start, voters, SPAN]
  )
  // Floods: 545-3,836 fresh addresses (scaled), one vote each on one product in 1-3 hours; all but the first 10 held.
  await client.query(
    `CREATE TABLE bench_floods AS
     SELECT k, floor($1::int * (bench_u(k, 401) ^ 2))::bigint AS rank, greatest(30, round((545 + 3291 * bench_u(k, 402)) * $2::float8))::int AS size,
       3600 * (1 + 2 * bench_u(k, 403)) AS len, ($3::int - 3 * 3600) * bench_u(k, 404) AS at
     FROM generate_series(0, $4::int - 1) k`,
    [products, scale, SPAN, floods]
  )
  const floodVotes = await step(
    "flood votes",
    `INSERT INTO votes (product_id, voter, direction, created_at, updated_at, counting, network)
     SELECT md5('p' || f.rank)::uuid, 'ip:' || md5('fl' || f.k || ':' || j), 'up', x.ts, x.ts, CASE WHEN j < 10 THEN 'counted' ELSE 'held' END,
       md5('fn' || f.k || ':' || (j % 40))
     FROM bench_floods f CROSS JOIN LATERAL generate_series(0, f.size - 1) j
     CROSS JOIN LATERAL (SELECT $1::timestamptz + (f.at + CASE WHEN j < 10 THEN j ELSE f.len * bench_u(f.k * 100000 + j, 405) END) * interval '1 second' AS ts) x
     ON CONFLICT DO NOTHING`,
    [start]
  )
  const planted = ringVotes + camouflage + viralVotes + floodVotes
  const benign = VOTES - planted

  // Benign voters: votes each lognormal (median 20, sigma 1.35: mean ~50, max ~9,000 at 200k voters),
  // scaled so that they cast `benign` votes in all; 55 % agents, the rest addresses; a home network each.
  await step(
    "voters",
    `CREATE TABLE bench_voters AS
     WITH raw AS (
       SELECT v, least($1::int / 4.0, greatest(1, exp(ln(20) + 1.35 * sqrt(-2 * ln(bench_u(v, 11))) * cos(2 * pi() * bench_u(v, 12))))) AS k
       FROM generate_series(0, $2::int - 1) v),
     cum AS (SELECT v, k, sum(k) OVER (ORDER BY v) AS upto, sum(k) OVER () AS total FROM raw)
     SELECT v, bench_voter(v) AS voter, bench_u(v, 13) < 0.55 AS agent, md5('n' || floor(bench_u(v, 14) * $2::int * 0.7)::bigint) AS net,
       floor((upto - k) * $3::bigint / total)::bigint AS start, (floor(upto * $3::bigint / total) - floor((upto - k) * $3::bigint / total))::int AS cnt
     FROM cum`,
    [products, voters, benign]
  )
  await client.query("CREATE UNIQUE INDEX ON bench_voters (v)")
  // Agents: 3 % of them 3-4.5 days old and without standing yet (the pass gives it), the rest older, with standing.
  await step(
    "agents",
    `INSERT INTO agents (id, kind, name, key_hash, key_hint, created_at, standing_since)
     SELECT substr(voter, 7)::uuid, 'registered', 'bench agent ' || v, md5('k' || v), 'bench', c.at, CASE WHEN y.young THEN NULL ELSE c.at + interval '3 days' END
     FROM bench_voters CROSS JOIN LATERAL (SELECT bench_u(v, 15) < 0.03 AS young) y
     CROSS JOIN LATERAL (SELECT $1::timestamptz - CASE WHEN y.young THEN 3 + 1.5 * bench_u(v, 16) ELSE 3 + 400 * bench_u(v, 16) END * interval '1 day' AS at) c
     WHERE agent`,
    [t0]
  )
  // Benign votes: product by popularity (rank = P·u², a power law: median ~7 votes a product, the top
  // ~N/(2√P)), 80 % up, a daily cycle, 0.3 % held (bystanders of bursts), 90 % from the voter's home network.
  const benignSql = (from: string) => `
     INSERT INTO votes (product_id, voter, direction, created_at, updated_at, counting, network)
     SELECT md5('p' || floor($2::int * (bench_u(i, 1) ^ 2))::bigint)::uuid, b.voter, CASE WHEN bench_u(i, 2) < 0.8 THEN 'up' ELSE 'down' END, x.ts, x.ts,
       CASE WHEN bench_u(i, 3) < 0.003 THEN 'held' ELSE 'counted' END,
       CASE WHEN bench_u(i, 4) < 0.9 THEN b.net ELSE md5('n' || floor(bench_u(i, 5) * $3::int * 0.7)::bigint) END
     FROM ${from}
     CROSS JOIN LATERAL (SELECT $1::timestamptz + bench_offset(i) * interval '1 second' AS ts) x
     ON CONFLICT DO NOTHING`
  let inserted =
    planted +
    (await step("benign votes", benignSql("bench_voters b CROSS JOIN LATERAL generate_series(b.start, b.start + b.cnt - 1) AS i"), [
      start,
      products,
      voters
    ]))
  // A voter's second vote on a product is the same row: top up with votes of random voters to the count.
  for (let round = 1; inserted < VOTES; round++) {
    inserted += await step(
      `top-up ${round}`,
      benignSql(`generate_series($4::bigint, $5::bigint) AS i JOIN bench_voters b ON b.v = floor($3::int * bench_u(i, 21))::int`),
      [start, products, voters, 1e12 * round, 1e12 * round + (VOTES - inserted) - 1]
    )
  }
  await client.query("SET session_replication_role = origin")
  await step("held votes kept aside", "CREATE TABLE bench_held AS SELECT product_id, voter FROM votes WHERE counting = 'held'")
  await client.query("CREATE TABLE bench_standing AS SELECT id, standing_since FROM agents")
  await step(
    "counters",
    `CREATE TEMP TABLE tallies AS SELECT product_id, count(*) FILTER (WHERE direction = 'up') AS up, count(*) FILTER (WHERE direction = 'down') AS down
       FROM votes WHERE counting = 'counted' GROUP BY product_id;
     UPDATE products p SET trust_up = t.up, trust_down = t.down FROM tallies t WHERE p.id = t.product_id;
     DROP TABLE tallies`
  )
  for (const table of ["votes", "products", "agents"]) await step(`vacuum analyze ${table}`, `VACUUM ANALYZE ${table}`)
  const counts = (
    await client.query<{ votes: string; held: string; agents: string; members: string }>(
      `SELECT (SELECT count(*) FROM votes) AS votes, (SELECT count(*) FROM bench_held) AS held, (SELECT count(*) FROM agents) AS agents,
         (SELECT count(*) FROM bench_ring_voters) AS members`
    )
  ).rows[0]!
  if (Number(counts.votes) !== VOTES) throw new Error(`generated ${counts.votes} votes, not ${VOTES}`)
  const seconds = (performance.now() - started) / 1000
  await client.query(
    `CREATE TABLE bench_meta AS SELECT $1::bigint AS votes, $2::timestamptz AS generated_at, $3::float8 AS seconds, $4::int AS products,
       $5::int AS voters, $6::int AS agents, $7::int AS rings, $8::int AS ring_members, $9::int AS ring_votes, $10::int AS held`,
    [VOTES, t0, seconds, products, voters, Number(counts.agents), rings, Number(counts.members), ringVotes, Number(counts.held)]
  )
  console.log(`ledger generated in ${seconds.toFixed(0)} s`)
}

/** Puts the ledger back as generated: no groups, held votes held, standing as it was, counters to match. */
const reset = async (client: pg.Client) => {
  const started = performance.now()
  await client.query(`
    BEGIN;
    CREATE TEMP TABLE bench_touched ON COMMIT DROP AS
      SELECT DISTINCT product_id FROM votes WHERE group_id IS NOT NULL UNION SELECT DISTINCT product_id FROM bench_held;
    UPDATE votes SET counting = 'counted', group_id = NULL WHERE group_id IS NOT NULL;
    UPDATE votes v SET counting = 'held' FROM bench_held h WHERE v.product_id = h.product_id AND v.voter = h.voter AND v.counting <> 'held';
    DELETE FROM vote_groups;
    UPDATE agents a SET standing_since = s.standing_since FROM bench_standing s WHERE a.id = s.id AND a.standing_since IS DISTINCT FROM s.standing_since;
    UPDATE products p SET trust_up = p.seed_up + coalesce(x.up, 0), trust_down = p.seed_down + coalesce(x.down, 0)
      FROM bench_touched t LEFT JOIN (
        SELECT product_id, count(*) FILTER (WHERE direction = 'up') AS up, count(*) FILTER (WHERE direction = 'down') AS down
        FROM counted_votes WHERE product_id IN (SELECT product_id FROM bench_touched) GROUP BY product_id) x USING (product_id)
      WHERE p.id = t.product_id AND (p.trust_up, p.trust_down) IS DISTINCT FROM (p.seed_up + coalesce(x.up, 0), p.seed_down + coalesce(x.down, 0));
    COMMIT;`)
  return performance.now() - started
}

/** What the first apply marked: votes of planted ring members, and of anyone else. */
const caught = async (client: pg.Client) => {
  const row = (
    await client.query<{ ring: string; flood: string; other: string; discounted: string; members: string; floods: string }>(
      `WITH flooders AS (
         SELECT 'ip:' || md5('fl' || f.k || ':' || j) AS voter FROM bench_floods f CROSS JOIN LATERAL generate_series(0, f.size - 1) j)
       SELECT count(*) FILTER (WHERE r.voter IS NOT NULL) AS ring,
         count(*) FILTER (WHERE r.voter IS NULL AND v.voter IN (SELECT voter FROM flooders)) AS flood,
         count(*) FILTER (WHERE r.voter IS NULL AND v.voter NOT IN (SELECT voter FROM flooders)) AS other,
         count(*) FILTER (WHERE v.counting = 'discounted') AS discounted, count(DISTINCT r.voter) AS members,
         (SELECT count(*) FROM bench_floods) AS floods
       FROM votes v LEFT JOIN bench_ring_voters r ON r.voter = v.voter WHERE v.group_id IS NOT NULL`
    )
  ).rows[0]!
  return {
    ring: Number(row.ring),
    flood: Number(row.flood),
    other: Number(row.other),
    discounted: Number(row.discounted),
    members: Number(row.members),
    floods: Number(row.floods)
  }
}

const mark = (value: number, goal: number, unit: string) =>
  value <= goal
    ? "✓"
    : `✗ missed by ${value - goal >= 10 ? (value - goal).toFixed(0) : (value - goal).toFixed(1)} ${unit} (${(value / goal).toFixed(1)}×)`

/** The statements of a run, slowest first: label, calls, wall s, CPU of the pass's process s. */
const statementRows = (run: Run, top: number) =>
  [...run.result.statements]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top)
    .map((t) => {
      const text = t.text.length > 110 ? `${t.text.slice(0, 107)}…` : t.text
      return `| \`${text.replace(/\|/g, "\\|")}\` | ${t.calls} | ${s1(t.ms)} | ${s1(t.cpuMs)} | ${t.peakRiseMb.toFixed(0)} |`
    })

/** How the pass reads and searches at this size, and what it took before (for the figures below to be read against). */
const HOW = `The window is read in one scan of \`votes\` (packages/store-postgres/src/windowOfRecentVotes.ts): a range of pages a
statement of 400 pages, each vote sent as bytes (its product's id, time and flags, its voter's and network's texts),
each range asked for before the one before it is taken apart (PostgreSQL scans while node numbers), the keys numbered in
node's hash tables of typed arrays (texts compared whole) and the columns ordered by a scatter (by product, then voter),
the pass's process run with productdir-reconcile's heap flags and mmap threshold and, since 2026-11-28, as one bundle as the CLI
runs (before, its modules one by one: ~40 MB more). Before 2026-11-26 the ranges took turns with node's work,
the columns were ordered by following the permutation's cycles in place (15 s of node's CPU at 10M), and until later
that day each key's 128-bit hash was sent beside its text, 1,000 pages a statement (below, "texts only"). PostgreSQL
grouping and joining the ten million votes on their keys had taken 60-100 s of the pass. Detection keeps no map per key:
the MinHash bands' buckets are found by sorting (a map of their 3.5 million string keys had taken a gigabyte), a product's
voters are views of the voter column, the members' votes one scan. The release UPDATE finds each vote by its primary key
(the planner had taken \`votes_held\` and scanned a viral product's held votes for each of them: 17-28 s). Same groups,
votes and releases as before (old and new detection compared on one 10M window). Before, on this machine the same day
(load 4-9): check 108 s, first apply 217 s, again 225 s, peak RSS 2423 / 2431 / 2833 MB; the window read alone 96 s,
findOverlap 17 s and +1.2 GB.`

const main = async () => {
  childScript = await bundleChild()
  const url = await ensureDatabase(DATABASE, process.env.BENCH_FRESH === "1")
  runChild("migrate", url)
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const found = await readMeta(client)
  const fresh =
    found !== undefined &&
    found.votes === VOTES &&
    Date.now() - found.generated_at.getTime() < 86_400_000 - 3_600_000 &&
    Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM votes")).rows[0]!.n) === VOTES
  if (fresh) console.log(`reusing the ledger generated ${found.generated_at.toISOString()} (in ${found.seconds.toFixed(0)} s)`)
  else {
    if (found !== undefined) console.log("the ledger in the database is of another size, or has aged out of the window: regenerating")
    await generate(client)
  }
  const meta = fresh ? found : await readMeta(client)
  if (meta === undefined) throw new Error("no ledger after generating one")
  console.log(
    `${n(meta.votes)} votes, ${n(meta.products)} products, ${n(meta.voters)} voters (+ fans, floods), ${n(meta.agents)} agents; ` +
      `${meta.rings} rings of ${n(meta.ring_members)} agents, ${n(meta.ring_votes)} votes on their targets; ${n(meta.held)} held`
  )

  const runs: Record<"check" | "apply" | "again", Array<Run>> = { check: [], apply: [], again: [] }
  let truth: Awaited<ReturnType<typeof caught>> | undefined
  const line = (label: string, run: Run) => {
    const r = run.result.report!
    const review = r.groups.filter((g) => "review" in g && g.review === true).length
    console.log(
      `  ${label}: ${s1(run.wallMs)} s (pass ${s1(run.result.runMs)} s; CPU ${s1(run.userMs + run.sysMs)} s, PostgreSQL CPU ${s1(run.postgresCpuMs)} s), ` +
        `peak RSS ${run.rssMb.toFixed(0)} MB, load ${run.load.toFixed(1)}; read ${n(r.votesRead)} votes, ${r.groups.length} groups (${review} for review), ` +
        `discounted ${n(r.discounted)}, released ${n(r.released)}, standing ${n(r.standing)}, recounted ${n(r.recounted)}`
    )
  }
  for (let round = 1; round <= ROUNDS; round++) {
    const resetMs = await reset(client)
    console.log(`round ${round} (ledger reset in ${s1(resetMs)} s):`)
    const check = runChild("check", url)
    line("check       ", check)
    const apply = runChild("apply", url)
    line("apply, first", apply)
    if (truth === undefined) truth = await caught(client)
    const again = runChild("apply", url)
    line("apply, again", again)
    if (again.result.report!.discounted !== 0 || again.result.report!.released !== 0)
      console.log("  ! the second apply changed votes (the first one's new standing replays the burst guard differently?)")
    runs.check.push(check)
    runs.apply.push(apply)
    runs.again.push(again)
  }
  await reset(client)
  console.log("profile: the window read and each detection step alone…")
  const profile = runChild("profile", url, ["--expose-gc"])
  await reset(client)
  await client.end()

  const wall = (k: keyof typeof runs) => median(runs[k].map((r) => r.wallMs)) / 1000
  const passOnly = (k: keyof typeof runs) => median(runs[k].map((r) => r.result.runMs)) / 1000
  const peak = (k: keyof typeof runs) => Math.max(...runs[k].map((r) => r.rssMb))
  const report = runs.apply[0]!.result.report!
  const checkReport = runs.check[0]!.result.report!
  const review = report.groups.filter((g) => "review" in g && g.review === true).length
  const againChanged = runs.again.map((r) => r.result.report!).filter((r) => r.discounted + r.released > 0)
  const all = [...runs.check, ...runs.apply, ...runs.again]
  const loads = all.map((r) => r.load)
  const table = [
    "| measure | measured | goal | |",
    "|---|---|---|---|",
    `| votes in the window (read by the pass) | ${n(checkReport.votesRead)} | ${n(VOTES)} | ${checkReport.votesRead === VOTES ? "✓" : "✗"} |`,
    `| groups found (planted: ${meta.rings} rings, ${truth!.floods} floods) | ${report.groups.length} (${review} for review) | | |`,
    `| ring members caught / planted; their votes marked / on targets | ${n(truth!.members)} / ${n(meta.ring_members)}; ${n(truth!.ring)} / ${n(meta.ring_votes)} | | |`,
    `| floods' votes marked (their counted ones: the held stay held) | ${n(truth!.flood)} | | |`,
    `| votes marked that are neither a ring's nor a flood's | ${n(truth!.other)} | 0 | ${truth!.other === 0 ? "✓" : "✗"} |`,
    `| first apply: discounted, released, standing, recounted | ${n(report.discounted)}, ${n(report.released)}, ${n(report.standing)}, ${n(report.recounted)} | | |`,
    `| check (\`apply: false\`), process wall time | ${wall("check").toFixed(1)} s (pass ${passOnly("check").toFixed(1)} s) | ≤ ${GOAL_SECONDS} s | ${mark(wall("check"), GOAL_SECONDS, "s")} |`,
    `| first apply (\`apply: true\`), process wall time | ${wall("apply").toFixed(1)} s (pass ${passOnly("apply").toFixed(1)} s) | ≤ ${GOAL_SECONDS} s | ${mark(wall("apply"), GOAL_SECONDS, "s")} |`,
    `| apply again (nothing to change${againChanged.length === 0 ? "" : `; it changed ${againChanged.map((r) => `${r.discounted} discounted, ${r.released} released`).join("; ")}`}), process wall time | ${wall("again").toFixed(1)} s (pass ${passOnly("again").toFixed(1)} s) | ≤ ${GOAL_SECONDS} s | ${mark(wall("again"), GOAL_SECONDS, "s")} |`,
    `| peak RSS of the pass's process: check / apply / again | ${peak("check").toFixed(0)} / ${peak("apply").toFixed(0)} / ${peak("again").toFixed(0)} MB | ≤ ${GOAL_RSS_MB} MB | ${mark(Math.max(peak("check"), peak("apply"), peak("again")), GOAL_RSS_MB, "MB")} |`
  ].join("\n")

  const applyRun = runs.apply[0]!
  const sqlMs = applyRun.result.statements.reduce((sum, t) => sum + t.ms, 0)
  // The window read (packages/store-postgres/src/windowOfRecentVotes.ts): its first statements, then its chunks of votes.
  const windowSql = applyRun.result.statements.filter(
    (t) => t.text.includes("v.ctid") || t.text.includes("pg_relation_size('votes')") || t.text.startsWith("SET TRANSACTION")
  )
  const sum = (ts: ReadonlyArray<StatementTime>) => ts.reduce((total, t) => total + t.ms, 0)
  const chunksMs = sum(windowSql.filter((t) => t.text.includes("v.ctid")))
  const chunkCalls = windowSql.filter((t) => t.text.includes("v.ctid")).reduce((n, t) => n + t.calls, 0)
  const sqlCpuMs = applyRun.result.statements.reduce((sum, t) => sum + t.cpuMs, 0)
  const where = [
    `The first apply of round 1: ${s1(applyRun.wallMs)} s in all; node's start, the modules and the store layer (migrations checked) ${s1(applyRun.result.layerMs)} s;`,
    `the pass ${s1(applyRun.result.runMs)} s, of which SQL statements ${s1(sqlMs)} s (the pass's process busy ${s1(sqlCpuMs)} s of it, receiving and parsing)`,
    `and the TypeScript between them (detection, verdict) ${s1(applyRun.result.runMs - sqlMs)} s; PostgreSQL's CPU meanwhile ${s1(applyRun.postgresCpuMs)} s`,
    `(every postgres process on the machine). The window's statements ${s1(sum(windowSql))} s (its ${chunkCalls} chunks of votes ${s1(chunksMs)} s;`,
    `node numbers each while the next is scanned, and orders them after the last), the verdict's and the standing's ${s1(sqlMs - sum(windowSql) - sum(applyRun.result.statements.filter((t) => t.text.includes("FROM vote_groups ORDER BY"))))} s.`,
    `Peak RSS ${applyRun.rssMb.toFixed(0)} MB, ${applyRun.result.steps[0]!.peakMb.toFixed(0)} MB of it once the store layer was built. Its statements, slowest first:`,
    "",
    "| statement | calls | wall (s) | pass's process CPU (s) | its peak RSS rose (MB) |",
    "|---|---|---|---|---|",
    ...statementRows(applyRun, 14),
    "",
    `Alone, in another process (peak RSS ${profile.rssMb.toFixed(0)} MB; the window: ${n(profile.result.window!.votes)} votes, ${n(profile.result.window!.products)} products,`,
    `${n(profile.result.window!.voters)} voters, ${n(profile.result.window!.networks)} networks; its columns ${profile.result.window!.columnMb.toFixed(0)} MB):`,
    "",
    "| step | wall (s) | CPU (s) | peak RSS so far (MB) | after it, GC'd: RSS / JS heap / typed arrays (MB) |",
    "|---|---|---|---|---|",
    ...profile.result.steps.map(
      (st) =>
        `| ${st.step} | ${s1(st.ms)} | ${s1(st.cpuMs)} | ${st.peakMb.toFixed(0)} | ${st.rssMb.toFixed(0)} / ${st.heapMb.toFixed(0)} / ${st.buffersMb.toFixed(0)} |`
    )
  ].join("\n")
  console.log(`\n${table}\n\n${where}\n`)

  // A run on another database (a copy, measured beside another commit) prints its figures and leaves the docs alone.
  if (VOTES === DEFAULT_VOTES && process.env.BENCH_DATABASE === undefined) {
    writeSection(
      "Crowd defense: the integrity pass at 10,000,000 votes",
      `
Command: \`cd bench && ../node_modules/.bin/node src/crowd-pass.ts\` (bench/src/crowd-pass.ts). PostgreSQL on 127.0.0.1:5432, the pass
through \`layerPostgres(…, { parallelQueries: true })\`, each run a process of its own under \`/usr/bin/time -v\` (wall time from
start to exit, node's start and the store layer included). Machine: ${cpus().length} cores, ${new Date().toISOString().slice(0, 10)};
${ROUNDS} rounds, medians; each round starts from the ledger as generated. Other work on the machine: its 1-minute load
average was ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} as the runs ended (the pass itself keeps about one core busy, in node or in PostgreSQL).

The ledger (SQL \`generate_series\`, ${meta.seconds.toFixed(0)} s with its indexes): ${n(meta.votes)} votes, all within the 8-day window (over the 7 days
before it was generated), ${n(meta.products)} products by a power law of popularity, ${n(meta.voters)} voters with lognormal votes each
(median 20) and a daily cycle, 55 % of them agents; ${meta.rings} planted rings (${n(meta.ring_members)} agents; 80 % voting each target within
an hour, 20 % over the week; 5-40 camouflage votes each); viral products and floods of fresh addresses whose burst votes
are held: ${n(meta.held)} held in all (${((100 * meta.held) / meta.votes).toFixed(1)} %).

${HOW}

${table}

${where}
`
    )
  }
}

const [flag, mode, url] = process.argv.slice(2)
if (flag === "--child" && mode !== undefined && url !== undefined) await child(mode, url)
else
  await main().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
