/**
 * Benchmark of issue "Import": N generated records (~2 KB each, default
 * 1,000,000) imported into PostgreSQL by `productdir-import`, side by side
 * with `COPY` of the same rows into the same tables (psql \copy, the limit):
 * the products, and their search vectors into product_search. Prints records/s of each, the ratio and the importer's peak RSS
 * (/usr/bin/time -v), and writes them into docs/benchmarks.md.
 *
 *   npm run bench:import
 *   BENCH_RECORDS=100000 npm run bench:import
 */
import { fromImportRecord, nameKey, type ProductId, searchFieldsOf, searchTokens, slugify } from "@productdir/domain"
import { generateRecord } from "@productdir/fixtures/generator"
import { spawnSync } from "node:child_process"
import { createWriteStream, existsSync, mkdirSync, statSync } from "node:fs"
import { cpus } from "node:os"
import { join } from "node:path"
import { once } from "node:events"
import { postgresCpuMillis } from "./cpu.ts"
import { ensureDatabase, ROOT, writeSection } from "./lib.ts"

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000)
const BATCH = Number(process.env.BENCH_BATCH ?? 500)
const DIR = join(ROOT, "bench", "results")
const NDJSON = join(DIR, `catalog-v2-${RECORDS}.ndjson`)
const CSV = join(DIR, `catalog-v4-${RECORDS}.csv`)
const SEARCH_CSV = join(DIR, `catalog-v4-${RECORDS}-search.csv`)

const csvField = (value: string | number) => {
  const text = String(value)
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** Writes the input file and the same rows as CSV for COPY (once; reused by later runs). */
const prepare = async () => {
  mkdirSync(DIR, { recursive: true })
  if (existsSync(NDJSON) && existsSync(CSV) && existsSync(SEARCH_CSV)) return
  console.log(`writing ${RECORDS.toLocaleString("en")} generated records…`)
  const ndjson = createWriteStream(NDJSON)
  const csv = createWriteStream(CSV)
  const searchCsv = createWriteStream(SEARCH_CSV)
  const slugs = new Set<string>()
  for (let i = 0; i < RECORDS; i++) {
    const record = generateRecord(7, i)
    const { input } = fromImportRecord(record, record.id as ProductId)
    let slug = slugify(input.content.name)
    for (let n = 2; slugs.has(slug); n++) slug = `${slugify(input.content.name)}-${n}` as typeof slug
    slugs.add(slug)
    const row = [
      input.id,
      slug,
      input.content.name,
      nameKey(input.content.name),
      input.content.category,
      JSON.stringify(input.content),
      input.seed.up,
      input.seed.down,
      input.seed.up,
      input.seed.down
    ]
      .map(csvField)
      .join(",")
    const search = [
      input.id,
      input.content.category.toLowerCase(),
      Object.values(searchFieldsOf(input.content)).flatMap(searchTokens).join(" ")
    ]
      .map(csvField)
      .join(",")
    ndjson.write(`${JSON.stringify(record)}\n`)
    csv.write(`${row}\n`)
    searchCsv.write(`${search}\n`)
    // Check each stream's own state: a drain that already happened must not be awaited.
    for (const stream of [ndjson, csv, searchCsv]) if (stream.writableNeedDrain) await once(stream, "drain")
  }
  const streams = [ndjson, csv, searchCsv]
  for (const stream of streams) stream.end()
  await Promise.all(streams.map((stream) => once(stream, "finish")))
}

/** A whole process, timed: wall seconds, its peak RSS and CPU (from /usr/bin/time), and PostgreSQL's CPU meanwhile. */
const timed = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => {
  const started = process.hrtime.bigint()
  const postgresBefore = postgresCpuMillis()
  const run = spawnSync("/usr/bin/time", ["-v", command, ...args], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  if (run.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${run.status}):\n${run.stderr.slice(-2000)}`)
  const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr)?.[1] ?? 0) / 1024
  const cpu = (label: string) => Number(new RegExp(`${label} time \\(seconds\\): ([\\d.]+)`).exec(run.stderr)?.[1] ?? 0)
  const postgresSeconds = (postgresCpuMillis() - postgresBefore) / 1000
  return { seconds, rssMb: rss, cpuSeconds: cpu("User") + cpu("System"), postgresSeconds, stdout: run.stdout }
}

const importer = join(ROOT, "apps", "import", "bin", "productdir-import.js")

const main = async () => {
  await prepare()
  const sizeMb = statSync(NDJSON).size / 1024 / 1024
  console.log(`input: ${NDJSON} (${sizeMb.toFixed(0)} MB, ${(statSync(NDJSON).size / RECORDS).toFixed(0)} bytes/record)`)

  // COPY: a fresh database with the same schema (migrated by the importer on an empty input).
  const copyUrl = await ensureDatabase("productdir_bench_copy", true)
  timed(importer, ["-"], { DATABASE_URL: copyUrl })
  const copy = timed(
    "psql",
    [
      copyUrl,
      "-v",
      "ON_ERROR_STOP=1",
      "-c",
      `\\copy products (id, slug, name, name_key, category, content, seed_up, seed_down, trust_up, trust_down) FROM '${CSV}' WITH (FORMAT csv)`,
      "-c",
      `\\copy product_search (product_id, category_key, search) FROM '${SEARCH_CSV}' WITH (FORMAT csv)`
    ],
    {}
  )
  console.log(`COPY: ${copy.seconds.toFixed(1)} s`)

  const importUrl = await ensureDatabase("productdir_bench_import", true)
  timed(importer, ["-"], { DATABASE_URL: importUrl })
  // Run as users run it: the executable bin, with the heap settings of its shebang line.
  const run = timed(importer, [NDJSON, "--batch-size", String(BATCH)], { DATABASE_URL: importUrl })
  console.log(run.stdout)

  const copyRate = RECORDS / copy.seconds
  const importRate = RECORDS / run.seconds
  const table = [
    "| loader | time (s) | records/s | ratio | peak RSS (MB) | target |",
    "|---|---|---|---|---|---|",
    `| \`COPY\` (psql \\copy, CSV of the same rows) | ${copy.seconds.toFixed(1)} | ${copyRate.toFixed(0)} | 1.00× | n/a | |`,
    `| \`productdir-import\` (NDJSON, --batch-size ${BATCH}) | ${run.seconds.toFixed(1)} | ${importRate.toFixed(0)} | ${(importRate / copyRate).toFixed(2)}× | ${run.rssMb.toFixed(0)} | ≥ 0.50×, ≤ 300 MB |`
  ].join("\n")
  // What bounds each: the loader's own CPU and PostgreSQL's, against the wall time on this machine's cores.
  const cpuTable = [
    "| loader | wall (s) | loader CPU (s) | PostgreSQL CPU (s) | CPU / wall |",
    "|---|---|---|---|---|",
    ...(
      [
        ["`COPY`", copy],
        ["`productdir-import`", run]
      ] as const
    ).map(
      ([name, t]) =>
        `| ${name} | ${t.seconds.toFixed(1)} | ${t.cpuSeconds.toFixed(1)} | ${t.postgresSeconds.toFixed(1)} | ${((t.cpuSeconds + t.postgresSeconds) / t.seconds).toFixed(2)} |`
    )
  ].join("\n")
  console.log(`\n${table}\n\n${cpuTable}\n`)
  writeSection(
    "Import: productdir-import against COPY",
    `
Command: \`npm run bench:import\` (${RECORDS.toLocaleString("en")} generated records, ${(statSync(NDJSON).size / RECORDS).toFixed(0)} bytes each on
average, ${sizeMb.toFixed(0)} MB of NDJSON; PostgreSQL on 127.0.0.1:5432; a fresh, migrated database for each loader).
Machine: ${cpus().length} cores, ${new Date().toISOString().slice(0, 10)}. Both are timed as whole processes, start to exit; the
importer's time includes parsing, validating every record with the domain schema, slug assignment and
change detection. COPY loads the same rows, pre-computed as CSV (slug, content JSON; search words into product_search), into the
same tables with the same indexes: the limit, not a competitor. Peak RSS from \`/usr/bin/time -v\`.

${table}

Where the time goes: the CPU of the loader's process (\`/usr/bin/time\`) and of PostgreSQL's processes
(\`/proc\`) while it ran; CPU over wall is how many of the ${cpus().length} cores were busy.

${cpuTable}
`
  )
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
