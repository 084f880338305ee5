import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { CatalogStore, type ImportRecord } from "@productdir/domain"
import { bulkyRecord } from "@productdir/fixtures"
import { generateRecord } from "@productdir/fixtures/generator"
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { BIN, runCli, spawnCli, type Target, targets, workDir } from "./cli.ts"

type Exported = ImportRecord & { id: string; slug: string; version: number; updated_at: string; trust: { trust_up: number } }

/** Generated records always carry an id and trust. */
type Generated = ImportRecord & { id: string; trust: { trust_up: number; trust_down: number } }
const records = (seed: number, n: number) => Array.from({ length: n }, (_, i) => generateRecord(seed, i) as Generated)
const ndjson = (rs: ReadonlyArray<unknown>) => `${rs.map((r) => JSON.stringify(r)).join("\n")}\n`

/** util-linux's `script`, which gives a command a terminal of its own. */
const hasScript = spawnSync("script", ["--version"]).status === 0

for (const variant of targets()) {
  // Each test runs the CLI as a process a dozen times, each opening the store: on a busy two-core machine with PGlite
  // that is minutes (a CI run beside a CPU-bound job took 181 s for --prune's). The deadline is for a hang, not speed.
  describe(`productdir-import on ${variant.name}`, { timeout: 900_000 }, () => {
    let target: Target
    let dir: string
    const file = (name: string, text: string) => {
      const path = join(dir, name)
      writeFileSync(path, text)
      return path
    }
    const cli = (args: ReadonlyArray<string>, stdin?: string) => runCli(args, target.env, stdin)
    const exported = async (): Promise<Array<Exported>> => {
      const run = await cli(["export", "-"])
      expect(run.code, run.stderr).toBe(0)
      return run.stdout
        .split("\n")
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as Exported)
    }

    beforeEach(async () => {
      target = await variant.make()
      dir = workDir()
    })
    afterEach(async () => {
      await target.dispose()
      rmSync(dir, { recursive: true, force: true })
    })

    it("imports a clean file, and a rerun changes nothing", async () => {
      const input = records(1, 30)
      const path = file("clean.ndjson", ndjson(input))
      const first = await cli([path])
      expect(first.code, first.stderr).toBe(0)
      expect(first.stdout).toMatch(/created\s+30/)
      const before = await exported()
      expect(before.map((r) => r.id).sort()).toEqual(input.map((r) => r.id).sort())
      const one = before.find((r) => r.id === input[0]!.id)!
      expect([one.name, one.category, one.version]).toEqual([input[0]!.name, input[0]!.category, 1])
      expect(one.trust.trust_up).toBe(input[0]!.trust!.trust_up)
      const again = await cli([path])
      expect(again.code).toBe(0)
      expect(again.stdout).toMatch(/unchanged\s+30/)
      expect(again.stdout).toMatch(/created\s+0/)
      const after = await exported()
      expect(after.map((r) => [r.id, r.version, r.updated_at]).sort()).toEqual(before.map((r) => [r.id, r.version, r.updated_at]).sort())
    })

    it("records as large as the limits allow load with the default flags, in batches bounded by bytes, and export whole", async () => {
      // 24 records of about 1 MB each: one batch of the default 500 records would hold them all at once.
      const bulky = Array.from({ length: 24 }, (_, i) => bulkyRecord(i))
      const run = await runCli([file("bulky.ndjson", ndjson(bulky))], { ...target.env, LOG_LEVEL: "debug" })
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toMatch(/created\s+24/)
      const batches = `${run.stdout}${run.stderr}`.match(/batch committed/g) ?? []
      // At most 4 MiB a batch: four records, so six batches or more.
      expect(batches.length).toBeGreaterThanOrEqual(6)
      const out = await exported()
      expect(out).toHaveLength(24)
      expect(out.map((r) => r.ai_summary).sort()).toEqual(bulky.map((r) => r.ai_summary).sort())
    })

    it.skipIf(!hasScript)("on a terminal, the progress line shows the file's share done and the time left", async () => {
      const path = file("terminal.ndjson", ndjson(records(5, 1_200)))
      // A terminal of its own (util-linux's script): the line is drawn only on one.
      const run = spawnSync("script", ["-qec", `"${process.execPath}" "${BIN}" "${path}"`, "/dev/null"], {
        env: { ...process.env, ...target.env },
        encoding: "utf8"
      })
      expect(run.status, run.stdout).toBe(0)
      // The terminal's control sequences (ESC [ ... letter) taken out: what a person reads.
      const drawn = run.stdout.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, "g"), "")
      expect(drawn).toMatch(/\d+% \| \d+ records \| \d+ records\/s \| 0 rejected \| \S+ left/)
      expect(drawn).toContain("100% | 1200 records")
    })

    it("reports each bad line with its field paths and loads the good ones", async () => {
      const good = records(2, 5)
      const { category: _c, ...noCategory } = good[1]!
      const badPrice = { ...good[3]!, pricing: { model: "x", plans: [{ name: "p", price: 12, features: [] }] } }
      const lines = [good[0], noCategory, good[2], "{not json", badPrice, good[4]].map((r) =>
        typeof r === "string" ? r : JSON.stringify(r)
      )
      const run = await cli([file("mixed.ndjson", `${lines.join("\n")}\n`), "--report", join(dir, "report.json")])
      expect(run.code).toBe(1)
      expect(run.stderr).toContain("line 2: rejected: category: is required")
      expect(run.stderr).toMatch(/line 4: rejected: \(record\): not valid JSON/)
      // Its place within its line, not a second line number counted from the record's start.
      expect(run.stderr).toMatch(/line 4: rejected: \(record\): not valid JSON \([^)]* at column 2 of the line\)/)
      expect(run.stderr).not.toMatch(/line 1 column/)
      // A broken object is not taken for another format; a line that is not an object at all is.
      expect(run.stderr).not.toContain("CSV")
      const csv = await cli([file("catalog.csv", "name,category\nPulse,Analytics\n")])
      expect(csv.stderr).toContain("line 1: rejected: (record): not valid JSON")
      expect(csv.stderr).toContain("each line must be one JSON object (NDJSON): CSV and other formats are not read")
      // A line that would write to the terminal (an escape sequence, a bidirectional override) is quoted escaped.
      const hostile = await cli([file("hostile.ndjson", "\u001b[2Jhello\n\u202egnp.exe\n")])
      expect(hostile.stderr).toContain("\\u001b[2Jhello")
      expect(hostile.stderr).toContain("\\u202egnp")
      expect(hostile.stderr.includes("\u001b") || hostile.stderr.includes("\u202e")).toBe(false)
      expect(run.stderr).toContain("line 5: rejected: pricing.plans[0].price: must be text")
      expect(run.stdout).toMatch(/created\s+3/)
      expect(run.stdout).toMatch(/rejected\s+3/)
      const report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8"))
      expect(report.summary).toMatchObject({ created: 3, rejected: 3, read: 6 })
      expect(report.rejections.map((r: { line: number }) => r.line)).toEqual([2, 4, 5])
      expect(report.rejections[0].errors).toEqual([{ path: "category", message: "is required" }])
      expect((await exported()).map((r) => r.id).sort()).toEqual([good[0]!.id, good[2]!.id, good[4]!.id].sort())
      // A report that cannot be written is refused before anything is imported (exit 2 says nothing was written).
      const unwritable = await cli([file("more.ndjson", ndjson(records(21, 2))), "--report", join(dir, "no-such-folder", "r.json")])
      expect(unwritable.code).toBe(2)
      expect(unwritable.stderr).toContain("cannot write the report to")
      expect(unwritable.stderr).toContain("nothing was imported")
      expect((await exported()).length).toBe(3)
    })

    it("a record that gives a name twice is rejected at each repeat's path, in NDJSON and in a JSON array; nothing of it is imported", async () => {
      const good = records(3, 4)
      // JSON.parse (and stream-json) would keep the second value without a word: the record is refused instead.
      // Names compare as JSON reads them: "\\u006eame" is "name".
      const twiceName = JSON.stringify(good[1]).replace(/^\{/, '{"\\u006eame":"First",')
      const { category: _c, ...noCategory } = good[2]!
      const twiceNested = JSON.stringify(noCategory).replace(/"pricing":\{/, '"pricing":{"model":"free",')
      const lines = [JSON.stringify(good[0]), twiceName, twiceNested, JSON.stringify(good[3])]
      const run = await cli([file("twice.ndjson", `${lines.join("\n")}\n`), "--report", join(dir, "twice.json")])
      expect(run.code, run.stderr).toBe(1)
      expect(run.stderr).toContain("line 2: rejected: name: is given more than once in its object: give it once")
      // Every wrong field of the record at once: the repeat and what the schema found.
      expect(run.stderr).toContain("line 3: rejected: pricing.model: is given more than once in its object")
      expect(run.stderr).toContain("category: is required")
      const report = JSON.parse(readFileSync(join(dir, "twice.json"), "utf8"))
      expect(
        report.rejections.map((r: { line: number; errors: ReadonlyArray<{ path: string }> }) => [r.line, r.errors.map((e) => e.path)])
      ).toEqual([
        [2, ["name"]],
        [3, ["pricing.model", "category"]]
      ])
      expect((await exported()).map((r) => r.id).sort()).toEqual([good[0]!.id, good[3]!.id].sort())

      const array = await cli([file("twice.json", `[${[twiceName, JSON.stringify(good[1]), twiceNested].join(",\n")}]`)])
      expect(array.code, array.stderr).toBe(1)
      expect(array.stderr).toContain("index 0: rejected: name: is given more than once in its object")
      expect(array.stderr).toContain("index 2: rejected: pricing.model: is given more than once in its object")
      expect(array.stderr).not.toContain("index 1:")
      expect((await exported()).map((r) => r.id).sort()).toEqual([good[0]!.id, good[1]!.id, good[3]!.id].sort())
    })

    it("reads UTF-8 only: a record with a Latin-1 byte is rejected naming the byte, a byte order mark is skipped, UTF-16 is refused", async () => {
      const good = records(4, 4)
      const bytesFile = (name: string, bytes: Buffer) => {
        const path = join(dir, name)
        writeFileSync(path, bytes)
        return path
      }
      // "Café" saved as Latin-1: the é is the one byte 0xE9, which read as UTF-8 would become U+FFFD without a word.
      const latin1 = Buffer.from(JSON.stringify({ ...good[1], name: "Café Ledger" }), "latin1")
      const lines = [Buffer.from(JSON.stringify(good[0])), latin1, Buffer.from(JSON.stringify(good[2]))]
      const at = latin1.indexOf(0xe9) + 1
      const run = await cli([
        bytesFile("latin1.ndjson", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), ...lines.flatMap((l) => [l, Buffer.from("\n")])]))
      ])
      expect(run.code, run.stderr).toBe(1)
      // The byte order mark before line 1 is skipped: line 1 loads.
      expect(run.stderr.trim().split("\n")).toEqual([
        `line 2: rejected: (record): not valid UTF-8 at byte ${at} (0xE9): the file must be UTF-8 (in Latin-1 or Windows-1252, "é" is the one byte 0xE9); save it as UTF-8 and import it again`
      ])
      expect((await exported()).map((r) => r.id).sort()).toEqual([good[0]!.id, good[2]!.id].sort())

      // A JSON array with a byte order mark loads; UTF-8 text with accents is kept as sent.
      const accented = { ...good[3]!, name: "Zürich Ledger" }
      const array = await cli([
        bytesFile("bom.json", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify([accented]))]))
      ])
      expect(array.code, array.stderr).toBe(0)
      expect((await exported()).find((r) => r.id === accented.id)?.name).toBe("Zürich Ledger")

      // A broken byte in a JSON array ends the run where it is, as a malformed array does: the records before it are
      // imported, even those in the bytes read with it (they were dropped with their whole chunk); UTF-16 is refused at once.
      const brokenArray = Buffer.concat([Buffer.from(`[${JSON.stringify(good[1])},`), latin1, Buffer.from("]")])
      const broken = await cli([bytesFile("latin1.json", brokenArray)])
      expect(broken.code).toBe(2)
      expect(broken.stderr).toContain("the input is not valid UTF-8 near byte")
      expect(broken.stderr).toContain("(after the record at index 0); nothing after that point was read")
      expect((await exported()).map((r) => r.id)).toContain(good[1]!.id)
      const utf16 = await cli([
        bytesFile("utf16.ndjson", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(good[1]), "utf16le")]))
      ])
      expect(utf16.code).toBe(2)
      expect(utf16.stderr).toContain("the input is UTF-16 text (it starts with a UTF-16 byte order mark): save it as UTF-8")
      expect((await exported()).length).toBe(4)
      // A compressed file, or bytes that are no text, is one line and exit 2: not a rejection for each "line" of it.
      const packed = gzipSync(Buffer.from(ndjson(records(17, 3))))
      const noise = Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7919 + 13) % 256))
      for (const [name, bytes, says] of [
        ["catalog.ndjson.gz", packed, "the input is gzip-compressed: decompress it first"],
        ["noise.bin", noise, "the input is not text"]
      ] as const) {
        const refused = await cli([bytesFile(name, bytes)])
        expect(refused.code, name).toBe(2)
        expect(refused.stderr.trim().split("\n"), name).toEqual([expect.stringContaining(says)])
      }
      expect((await exported()).length).toBe(4)
    })

    it("names that share their first 80 characters: one file each, then a catalog of 600 of them, every one imported under its own slug", async () => {
      const long = "Meridian Continuous Compliance Evidence Collection and Audit Readiness Platform for Regulated Teams"
      const named = (name: string, seed: number) => {
        const { id: _id, slug: _slug, ...record } = records(seed, 1)[0]!
        return { ...record, name }
      }
      for (const [i, letter] of ["A", "B", "C"].entries()) {
        const run = await cli([file(`one-${letter}.ndjson`, ndjson([named(`${long} ${letter}`, 40 + i)]))])
        expect(run.code, run.stderr).toBe(0)
        expect(run.stdout).toMatch(/created\s+1/)
      }
      const catalog = Array.from({ length: 600 }, (_, i) => named(`${long} ${i}`, 100 + i))
      const run = await cli([file("many.ndjson", ndjson(catalog))])
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toMatch(/created\s+600/)
      const slugs = (await exported()).map((r) => r.slug)
      expect(slugs).toHaveLength(603)
      expect(new Set(slugs).size).toBe(603)
      expect(Math.max(...slugs.map((slug) => slug.length))).toBeLessThanOrEqual(80)
    })

    it("a record the store refuses is rejected with its line, naming what the store said; the others load", async () => {
      // A rule of the store no record check knows: an operator's own constraint.
      await target.run(
        SqlClient.SqlClient.use((sql) => sql`ALTER TABLE products ADD CONSTRAINT no_forbidden CHECK (name NOT LIKE 'Forbidden%')`)
      )
      const input = records(12, 9).map((r, i) => (i === 6 ? { ...r, name: "Forbidden Product" } : r))
      const run = await cli([file("refused.ndjson", ndjson(input))])
      expect(run.code).toBe(1)
      expect(run.stderr.trim().split("\n")).toEqual([
        'line 7: rejected: (record): the store refused it: new row for relation "products" violates check constraint "no_forbidden"'
      ])
      expect(run.stdout).toMatch(/created\s+8/)
      expect(run.stdout).toMatch(/rejected\s+1/)
      expect(run.stderr + run.stdout).not.toContain("DATABASE_URL")
      expect((await exported()).map((r) => r.id).sort()).toEqual(
        input
          .filter((_, i) => i !== 6)
          .map((r) => r.id)
          .sort()
      )
    })

    it("--strict: one bad record fails the run and writes nothing", async () => {
      const input = records(3, 8)
      const lines = `${ndjson(input)}{"name": 1}\n`
      const run = await cli([file("strict.ndjson", lines), "--strict"])
      expect(run.code).toBe(1)
      // Said in the words every door uses, with the record's line and the field's path.
      expect(run.stderr).toContain("line 9: rejected: name: must be text; category: is required")
      expect(run.stdout).toContain("strict: nothing written")
      // The records it read, though it wrote none.
      expect(run.stdout).toMatch(/: 9 records in /)
      expect(await exported()).toEqual([])
      const fromStdin = await cli(["-", "--strict"], ndjson(input))
      expect(fromStdin.code, fromStdin.stderr).toBe(0)
      expect((await exported()).length).toBe(8)
    })

    it("--dry-run reports what would change and writes nothing", async () => {
      const input = records(4, 6)
      await cli([file("seed.ndjson", ndjson(input.slice(0, 2)))])
      const before = await exported()
      const changed = [{ ...input[0]!, ai_summary: "Rewritten." }, ...input.slice(1)]
      const run = await cli([file("dry2.ndjson", ndjson(changed)), "--dry-run"])
      expect(run.code).toBe(0)
      expect(run.stdout).toContain("dry run")
      expect(run.stdout).toMatch(/created\s+4 \(would be\)/)
      expect(run.stdout).toMatch(/updated\s+1 \(would be\)/)
      expect(run.stdout).toMatch(/unchanged\s+1 \(would be\)/)
      expect(await exported()).toEqual(before)
    })

    it("--dry-run changes no schema: a store with no catalog yet is checked as empty and nothing is created; an older schema is refused", async () => {
      const input = records(22, 3)
      const path = file("dry-first.ndjson", ndjson(input))
      if (variant.name === "pglite") {
        // A data directory that does not exist yet stays so.
        const none = join(dir, "no-data-yet")
        const run = await runCli([path, "--dry-run"], { DATA_DIR: none })
        expect(run.code, run.stderr).toBe(0)
        expect(run.stdout).toMatch(/created\s+3 \(would be\)/)
        expect(existsSync(none)).toBe(false)
        return
      }
      const url = Redacted.make(target.env.DATABASE_URL!)
      const query = <A extends object>(text: string) =>
        Effect.runPromise(
          SqlClient.SqlClient.use((sql) => sql.unsafe<A>(text)).pipe(Effect.provide(PgClient.layer({ url, maxConnections: 1 })))
        )
      const tables = () => query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")
      const before = (await tables())[0]!.n
      const onEmpty = await cli([path, "--dry-run"])
      expect(onEmpty.code, onEmpty.stderr).toBe(0)
      if (before === 0) {
        // Before, the dry run migrated the empty database: 19 tables.
        expect(onEmpty.stdout).toMatch(/created\s+3 \(would be\)/)
        expect((await tables())[0]!.n).toBe(0)
      }
      // A schema this version would change is not changed by a dry run: it says so, and exits 2.
      expect((await cli([path])).code).toBe(0)
      const [all] = await query<{ n: number }>("SELECT count(*)::int AS n FROM productdir_migrations")
      const [last] = await query<{ migration_id: number; name: string }>(
        "SELECT migration_id, name FROM productdir_migrations ORDER BY migration_id DESC LIMIT 1"
      )
      await query("DELETE FROM productdir_migrations WHERE migration_id = (SELECT max(migration_id) FROM productdir_migrations)")
      const behind = await cli([path, "--dry-run"])
      expect(behind.code).toBe(2)
      expect(behind.stderr).toContain(
        `has a schema this version would change (migration ${String(last!.migration_id).padStart(4, "0")}_${last!.name})`
      )
      expect(behind.stderr).not.toContain("Check DATABASE_URL")
      const [ran] = await query<{ n: number }>("SELECT count(*)::int AS n FROM productdir_migrations")
      expect(ran!.n).toBe(all!.n - 1)
    })

    it("a changed record bumps version and updated_at; the others stay", async () => {
      const input = records(5, 4)
      await cli([file("v1.ndjson", ndjson(input))])
      const before = await exported()
      await new Promise((r) => setTimeout(r, 1100))
      const changed = input.map((r, i) => (i === 2 ? { ...r, key_features: ["Entirely new"] } : r))
      const run = await cli([file("v2.ndjson", ndjson(changed))])
      expect(run.stdout).toMatch(/updated\s+1/)
      const after = await exported()
      const byId = (rs: Array<Exported>, id: string) => rs.find((r) => r.id === id)!
      expect(byId(after, input[2]!.id).version).toBe(2)
      expect(byId(after, input[2]!.id).updated_at > byId(before, input[2]!.id).updated_at).toBe(true)
      expect(byId(after, input[2]!.id).key_features).toEqual(["Entirely new"])
      expect(byId(after, input[1]!.id)).toEqual(byId(before, input[1]!.id))
    })

    it("ids repeated in later batches: the last record wins, though batches are written side by side", async () => {
      const others = records(6, 20)
      const [a, b] = records(7, 2) as [Generated, Generated]
      // Batches of three: a and b come back in every batch, beside a product of its own.
      const lines = others.flatMap((other, i) => [
        { ...b, ai_summary: `B, version ${i}.` },
        other,
        { ...a, ai_summary: `A, version ${i}.` }
      ])
      const run = await cli([file("repeated.ndjson", ndjson(lines)), "--batch-size", "3"])
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toMatch(/created\s+22/)
      expect(run.stdout).toMatch(/updated\s+38/)
      expect(run.stdout).toMatch(/warnings\s+38/)
      const after = await exported()
      expect(after.find((r) => r.id === a.id)?.ai_summary).toBe("A, version 19.")
      expect(after.find((r) => r.id === b.id)?.ai_summary).toBe("B, version 19.")
      expect(after).toHaveLength(22)
    })

    it("--prune removes products absent from the input, and a later import restores them", async () => {
      const input = records(6, 5)
      await cli([file("all.ndjson", ndjson(input))])
      const run = await cli([file("some.ndjson", ndjson(input.slice(0, 3))), "--prune"])
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/removed\s+2/)
      expect((await exported()).map((r) => r.id).sort()).toEqual(
        input
          .slice(0, 3)
          .map((r) => r.id)
          .sort()
      )
      const withBad = await cli([file("bad.ndjson", `${ndjson(input.slice(0, 2))}{}\n`), "--prune"])
      expect(withBad.code).toBe(1)
      expect(withBad.stdout).toContain("prune skipped")
      expect((await exported()).length).toBe(3)
      const restored = await cli([file("all2.ndjson", ndjson(input))])
      expect(restored.stdout).toMatch(/updated\s+2/)
      expect((await exported()).length).toBe(5)
    })

    it("--prune with an input that holds no records prunes nothing: refused, exit 2", async () => {
      const input = records(6, 5)
      await cli([file("all.ndjson", ndjson(input))])
      // An input with no records (an export that failed, an empty pipe) would prune every product: refused, exit 2.
      for (const [args, stdin] of [
        [[file("empty.ndjson", ""), "--prune"], undefined],
        [[file("blank.ndjson", "\n\n  \n"), "--prune", "--strict"], undefined],
        [["-", "--prune"], ""]
      ] as const) {
        const refused = await cli(args, stdin)
        expect(refused.code, args.join(" ")).toBe(2)
        expect(refused.stdout).toMatch(/removed\s+0/)
        expect(refused.stdout).toContain("prune skipped: the input holds no records")
      }
      expect((await exported()).length).toBe(5)
    })

    it("ids that share their first 16 hex digits are different products, to the duplicate check and to --prune", async () => {
      const input = records(12, 4)
      // UUIDv7 ids made in the same millisecond look like this: one time prefix, different tails.
      const prefix = "019a8f2e-7c41-7d3a-9"
      const ids = ["b12-4f6a8c0d2e41", "b12-4f6a8c0d2e42", "c34-000000000001", "c34-000000000002"].map((tail) => `${prefix}${tail}`)
      const withIds = input.map((r, i) => ({ ...r, id: ids[i]! }))
      const run = await cli([file("v7.ndjson", ndjson(withIds))])
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toMatch(/created\s+4/)
      expect(run.stdout).toMatch(/warnings\s+0/)
      expect(run.stdout).not.toContain("same id")
      const pruned = await cli([file("v7-two.ndjson", ndjson([withIds[0], withIds[2]])), "--prune"])
      expect(pruned.code, pruned.stderr).toBe(0)
      expect(pruned.stdout).toMatch(/removed\s+2/)
      expect((await exported()).map((r) => r.id).sort()).toEqual([ids[0], ids[2]].sort())
      const repeated = await cli([file("v7-repeat.ndjson", ndjson([withIds[0], withIds[1], withIds[0]]))])
      expect(repeated.stdout).toContain("line 3: same id as line 1")
      expect(repeated.stdout).not.toContain("line 2: same id")
      // Two records that give no id and one slug are one product: said so, not "same id" of records that gave none.
      const [first, second] = records(13, 2).map(({ id: _id, ...rest }) => ({ ...rest, slug: "one-slug-twice" }))
      const bySlug = await cli([file("slug-twice.ndjson", ndjson([first, second]))])
      expect(bySlug.stdout).toContain("line 2: same product as line 1 (a record without an id is the product its slug names)")
    })

    it("reads a JSON array, and NDJSON from stdin", async () => {
      const input = records(7, 6)
      const array = await cli([file("array.json", `  \n${JSON.stringify(input.slice(0, 3), null, 2)}`)])
      expect(array.code, array.stderr).toBe(0)
      expect(array.stdout).toMatch(/created\s+3/)
      const badArray = await cli([file("bad-array.json", JSON.stringify([input[3], { name: 1 }]))])
      expect(badArray.code).toBe(1)
      expect(badArray.stderr).toContain("index 1: rejected")
      const stdin = await cli(["-"], ndjson(input.slice(4)))
      expect(stdin.code, stdin.stderr).toBe(0)
      expect(stdin.stdout).toMatch(/imported stdin: 2 records/)
      expect((await exported()).length).toBe(6)
      const broken = await cli([file("broken.json", '[{"name": "x"}, {')])
      expect(broken.code).toBe(2)
      expect(broken.stderr).toContain("malformed")
    })

    it("a slug another product holds: the record gets another, and the run says which", async () => {
      const [first, second] = records(16, 2).map((r) => ({ ...r, slug: "review-test" }))
      const run = await cli([file("slugs.ndjson", ndjson([first, second]))])
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toMatch(/created\s+2/)
      expect(run.stdout).toMatch(/warnings\s+1/)
      expect(run.stdout).toContain('line 2: slug "review-test" is another product\'s: this one is "review-test-2"')
      const slugs = new Map((await exported()).map((r) => [r.id, r.slug]))
      expect([slugs.get(first!.id), slugs.get(second!.id)]).toEqual(["review-test", "review-test-2"])
      // A product already in the catalog asking for a free slug keeps its own: the run says so, not that another holds it.
      const renamed = await cli([file("renamed.ndjson", ndjson([{ ...first!, slug: "brand-new-slug" }]))])
      expect(renamed.stdout).toContain(
        'line 1: slug "brand-new-slug" is not given: a product keeps the slug it was first given ("review-test")'
      )
      expect(renamed.stdout).not.toContain("another product's")
    })

    it("a JSON array broken anywhere ends the run at once with exit 2 and where it broke; it never hangs holding the store", async () => {
      const first = records(12, 1)[0]!
      const valid = JSON.stringify(first)
      const broken: ReadonlyArray<readonly [args: ReadonlyArray<string>, stdin: string | undefined, where: string]> = [
        [[file("oops.json", "[oops]")], undefined, "before its first record"],
        [[file("oops-second.json", `[${valid}, oops]`)], undefined, "malformed"],
        // Large enough that the parser is still being fed when it fails.
        [
          [file("oops-late.json", `[${Array.from({ length: 400 }, () => valid).join(",")}, {"name": "x", oops}]`)],
          undefined,
          "after the record at index"
        ],
        [["--format", "json", file("lines.ndjson", ndjson(records(13, 2)))], undefined, "malformed"],
        [["--format", "json", "--dry-run", "-"], ndjson(records(14, 2)), "malformed"]
      ]
      for (const [args, stdin, where] of broken) {
        const { child, done } = spawnCli(args, target.env, stdin)
        // A hang is a failure with its arguments named, not a test that times out.
        const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
        const run = await done.finally(() => clearTimeout(timer))
        expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(2)
        expect(run.stderr).toContain("the JSON array is malformed")
        expect(run.stderr).toContain(where)
      }
      // Records read whole before the break may be in (the run streams); nothing else is, and the store is free.
      expect(new Set((await exported()).map((r) => r.id))).toEqual(new Set([first.id]))
      const next = await cli([file("after.ndjson", ndjson(records(15, 1)))])
      expect(next.code, next.stderr).toBe(0)
      expect(next.stdout).toMatch(/: 1 record in /)
    })

    it("a JSON array broken part-way: every record before the break is imported, and the break is said after the last of them", async () => {
      const all = records(16, 44).map((r) => JSON.stringify(r))
      for (const [name, text, imported] of [
        ["mid.json", `[${all.slice(0, 40).join(",")},@@@,${all.slice(40).join(",")}]`, 40],
        ["trailing.json", `[${all.join(",")}]\nxyz`, 44],
        ["small.json", `[${all.slice(0, 2).join(",")}] trailing`, 2]
      ] as const) {
        const fresh = await variant.make()
        try {
          const run = await runCli([file(name, text)], fresh.env)
          expect(run.code, `${name}: ${run.stderr}`).toBe(2)
          expect(run.stderr, name).toContain(`the JSON array is malformed after the record at index ${imported - 1}`)
          const out = await runCli(["export", "-"], fresh.env)
          expect(out.stdout.split("\n").filter((l) => l.length > 0).length, name).toBe(imported)
        } finally {
          await fresh.dispose()
        }
      }
    })

    it("an empty file imports nothing and succeeds; a missing file is exit 2 with a clear message", async () => {
      const empty = await cli([file("empty.ndjson", "")])
      expect(empty.code).toBe(0)
      expect(empty.stdout).toMatch(/0 records/)
      const missing = await cli([join(dir, "nope.ndjson")])
      expect(missing.code).toBe(2)
      expect(missing.stderr).toMatch(/cannot read .*nope\.ndjson: no such file/)
      const usage = await cli(["--batch-size", "0", "x"])
      expect(usage.code).toBe(2)
      // A usage error is said first, on stderr, with the help after it: stdout (a file an export writes) stays empty.
      const misspelt = await cli(["export", "--bogus"])
      expect(misspelt.code).toBe(2)
      expect(misspelt.stdout).toBe("")
      expect(misspelt.stderr.trimStart()).toMatch(/^ERROR\n\s+Unrecognized flag: --bogus/)
      expect(misspelt.stderr).toContain("DESCRIPTION")
    })

    it("a record over 1 MiB is rejected, not a crash", async () => {
      const input = records(8, 2)
      const huge = { ...input[0]!, ai_summary: "x".repeat(1_200_000) }
      const run = await cli([file("huge.ndjson", ndjson([huge, input[1]]))])
      expect(run.code).toBe(1)
      expect(run.stderr).toMatch(/line 1: rejected: \(record\): the record is \d+ bytes, over the 1048576-byte limit/)
      expect((await exported()).map((r) => r.id)).toEqual([input[1]!.id])
    })

    it("export then import is a no-op, seed counts and problems included", async () => {
      const input = records(9, 10).map((r, i) => (i === 0 ? { ...r, problems: ["Sync stalls above 1M rows"] } : r))
      await cli([file("in.ndjson", ndjson(input))])
      const exportRun = await cli(["export", join(dir, "out.ndjson")])
      expect(exportRun.code).toBe(0)
      const round = await cli([join(dir, "out.ndjson")])
      expect(round.code, round.stderr).toBe(0)
      expect(round.stdout).toMatch(/unchanged\s+10/)
      expect(round.stdout).toMatch(/warnings\s+0/)
      const first = (await exported()).find((r) => r.id === input[0]!.id)!
      expect(first.problems).toEqual(["Sync stalls above 1M rows"])
      expect(first.trust.trust_up).toBe(input[0]!.trust!.trust_up)
      // A file that cannot be written, or that fails as it is written (a full disk), is one line and exit 2: it hung
      // without a word on the full disk, and printed a stack trace for the others.
      for (const [path, says] of [
        ["/dev/full", "no space left on device"],
        [join(dir, "missing", "out.ndjson"), "does not exist"],
        [dir, "it is a folder"]
      ] as const) {
        const { child, done } = spawnCli(["export", path], target.env)
        const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
        const failed = await done.finally(() => clearTimeout(timer))
        expect(failed.code, `${path}: ${failed.stderr}`).toBe(2)
        expect(failed.stderr.trim().split("\n"), path).toEqual([expect.stringContaining(says)])
        expect(failed.stderr).toContain(`cannot write the export to ${path}`)
      }
    })

    it("an import that writes over a publisher's change warns, naming the publisher; its version stays", async () => {
      const [r] = records(12, 1)
      await cli([file("own.ndjson", ndjson([r]))])
      await target.run(
        CatalogStore.use((catalog) =>
          Effect.flatMap(catalog.find(r!.id), (p) =>
            catalog.edit(
              { id: p.id, seed: p.seed, content: { ...p.content, ai_summary: "The vendor's own words." } },
              p.version,
              "vendor.example"
            )
          )
        )
      )
      const run = await cli([file("again.ndjson", ndjson([r]))])
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toContain("writes over the change its publisher (vendor.example) made; the publisher's version is kept")
      expect(run.stdout).toMatch(/updated\s+1/)
    })

    it("given trust values that disagree with the counts are warnings", async () => {
      const [r] = records(10, 1)
      const run = await cli([file("warn.ndjson", ndjson([{ ...r, trust: { ...r!.trust, trust_score: 99, evaluation_count: 1 } }]))])
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/warnings\s+2/)
      expect(run.stdout).toContain("trust.trust_score: given 99")
    })

    it("a run killed mid-way, then rerun, leaves the catalog a clean import would", async () => {
      const input = records(11, 3000)
      const path = file("big.ndjson", ndjson(input))
      const killed = spawnCli([path, "--batch-size", "100"], { ...target.env, LOG_LEVEL: "debug" })
      await new Promise<void>((resolveKill, reject) => {
        const timer = setTimeout(() => reject(new Error("no batch was committed within 60 s")), 60_000)
        killed.child.stderr!.on("data", (d: string) => {
          if (d.includes("batch committed")) {
            clearTimeout(timer)
            killed.child.kill("SIGKILL")
            resolveKill()
          }
        })
      })
      const stopped = await killed.done
      expect(stopped.code).toBe(null)
      const partial = (await exported()).length
      expect(partial).toBeGreaterThan(0)
      expect(partial).toBeLessThan(3000)
      const rerun = await cli([path, "--batch-size", "100"])
      expect(rerun.code, rerun.stderr).toBe(0)
      const resumed = await exported()
      const clean = await variant.make()
      try {
        expect((await runCli([path], clean.env)).code).toBe(0)
        const cleanRun = await runCli(["export", "-"], clean.env)
        const reference = cleanRun.stdout
          .split("\n")
          .filter((l) => l)
          .map((l) => JSON.parse(l) as Exported)
        const comparable = (rs: Array<Exported>) => rs.map(({ updated_at: _u, ...r }) => r).sort((a, b) => (a.id < b.id ? -1 : 1))
        // Record by record, so a difference names its record (3,000 records at once print as "no visual difference").
        const expected = new Map(comparable(reference).map((r) => [r.id, r]))
        expect(resumed.map((r) => r.id).sort()).toEqual([...expected.keys()].sort())
        for (const r of comparable(resumed)) expect(r, r.id).toEqual(expected.get(r.id))
      } finally {
        await clean.dispose()
      }
    })
  })
}

describe("productdir-import's data directory", () => {
  it("a DATA_DIR that cannot be made (under /proc, whose entries no one makes) is one line and exit 2, not a process spinning", async () => {
    const dir = workDir()
    try {
      const input = join(dir, "one.ndjson")
      writeFileSync(input, ndjson(records(18, 1)))
      const { child, done } = spawnCli([input], { DATA_DIR: "/proc/productdir-import-test/data" })
      // Node's recursive mkdir retried there without end, deaf to SIGTERM: a hang is a failure, not a timeout.
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
      const run = await done.finally(() => clearTimeout(timer))
      expect(run.code, run.stderr).toBe(2)
      expect(run.stderr).toContain("cannot use the data directory /proc/productdir-import-test/data")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
