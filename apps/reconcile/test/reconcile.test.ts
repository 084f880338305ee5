import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Stream } from "effect"
import { SqlClient } from "effect/sql"
import {
  type AgentId,
  AgentRegistry,
  addressVoter,
  agentVoter,
  CatalogStore,
  DEFAULT_BURST_GUARD,
  JobLock,
  type ProductId,
  type ProductInput,
  VoteLedger
} from "@productdir/domain"
import { execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { spawnApp, type TestTarget, testTargets, waitForOutput } from "@productdir/store-postgres/testing"
import { freshInput } from "@productdir/testkit"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const BIN = resolve(import.meta.dirname, "..", "bin", "productdir-reconcile.js")

const snapshots = VoteLedger.use((ledger) => Stream.runCollect(ledger.snapshots(500))).pipe(Effect.map((batches) => batches.flat()))

/** Seeds products with seed counts and a few live votes each. */
const seed = (inputs: ReadonlyArray<ProductInput>) =>
  Effect.gen(function* () {
    yield* CatalogStore.use((c) => c.upsert(inputs))
    const ledger = yield* VoteLedger
    for (const [i, input] of inputs.entries()) {
      for (let v = 0; v < 3 + i; v++)
        yield* ledger.cast({ entity: input.id, voter: addressVoter(`seed-${v}`), direction: v % 3 === 0 ? "down" : "up" })
    }
  })

const consistent = (
  rows: ReadonlyArray<{ stored: { up: number; down: number }; seed: { up: number; down: number }; ledger: { up: number; down: number } }>
) => rows.every((s) => s.stored.up === s.seed.up + s.ledger.up && s.stored.down === s.seed.down + s.ledger.down)

reportLeftOut("productdir-reconcile", storesLeftOut())
for (const variant of testTargets()) {
  describe(`productdir-reconcile on ${variant.name}`, { timeout: 600_000 }, () => {
    let target: TestTarget
    let dir: string
    const cli = (args: ReadonlyArray<string>) => spawnApp(BIN, args, target.env).done

    beforeEach(async () => {
      target = await variant.make()
      dir = mkdtempSync(join(tmpdir(), "productdir-reconcile-test-"))
    })
    afterEach(async () => {
      await target.dispose()
      rmSync(dir, { recursive: true, force: true })
    })

    it("finds drift injected by SQL with --check, repairs it, and a second --check is clean", async () => {
      const inputs = Array.from({ length: 6 }, () => freshInput({ seed: { up: 10, down: 2 } }))
      const [a, b, c, d] = inputs.map((p) => p.id as ProductId)
      await target.run(
        Effect.gen(function* () {
          yield* seed(inputs)
          const sql = yield* SqlClient.SqlClient
          yield* sql`UPDATE products SET trust_up = trust_up + 40 WHERE id = ${a!}` // counters edited
          yield* sql`INSERT INTO votes (product_id, voter, direction) VALUES (${b!}, 'ghost', 'down')` // ledger row added
          yield* sql`DELETE FROM votes WHERE product_id = ${c!} AND voter = 'ip:seed-1'` // ledger row removed
          yield* sql`UPDATE products SET seed_up = seed_up + 5 WHERE id = ${d!}` // seed changed
        })
      )
      const report = join(dir, "check.json")
      const check = await cli(["--check", "--report", report])
      expect(check.code, check.stderr).toBe(1)
      expect(check.stdout).toMatch(/checked 6 products, drifted 4, repaired 0 \(--check/)
      const found = JSON.parse(readFileSync(report, "utf8")) as {
        drifts: Array<{ id: string; stored: { trust_up: number }; expected: { trust_up: number; trust_down: number } }>
      }
      expect(found.drifts.map((x) => x.id).sort()).toEqual([a, b, c, d].sort())
      const driftA = found.drifts.find((x) => x.id === a)!
      expect(driftA.stored.trust_up - driftA.expected.trust_up).toBe(40)
      const driftB = found.drifts.find((x) => x.id === b)!
      expect(driftB.expected.trust_down).toBe(2 + 2 + 1) // seed 2, two live down votes (voters 0 and 3), the ghost

      const repair = await cli([])
      expect(repair.code, repair.stderr).toBe(0)
      expect(repair.stdout).toMatch(/drifted 4, repaired 4/)
      expect(repair.stdout).toMatch(/votes scanned \d+/)
      const again = await cli(["--check"])
      expect(again.code).toBe(0)
      expect(again.stdout).toMatch(/drifted 0/)
      expect(consistent(await target.run(snapshots))).toBe(true)
    })

    it("--every runs pass after pass and stops cleanly on SIGTERM", async () => {
      await target.run(seed([freshInput(), freshInput()]))
      const run = spawnApp(BIN, ["--every", "1s"], target.env)
      await waitForOutput(run.child, "checked 2 products")
      let passes = 0
      await new Promise<void>((done) => {
        run.child.stdout!.on("data", (d: string) => {
          passes += (d.match(/checked 2 products/g) ?? []).length
          if (passes >= 2) done()
        })
      })
      run.child.kill("SIGTERM")
      const stopped = await run.done
      expect(stopped.code).toBe(0)
      expect(stopped.stdout).toContain("until SIGTERM or SIGINT")
      expect(consistent(await target.run(snapshots))).toBe(true)
    })

    it("run by npm, it stops when npm is gone: a shell between them does not pass SIGTERM on", async () => {
      await target.run(seed([freshInput()]))
      // As npx runs a bin: npm, a shell, the tool. The shell is killed as npm's SIGTERM kills it, without passing it on.
      const shell = spawn("sh", ["-c", `"${process.execPath}" "${BIN}" --every 1s; true`], {
        env: { ...process.env, ...target.env, npm_command: "exec" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      await waitForOutput(shell, "products, drifted")
      const tool = Number(
        execFileSync("pgrep", ["-P", String(shell.pid)], { encoding: "utf8" })
          .trim()
          .split("\n")[0]
      )
      expect(tool).toBeGreaterThan(0)
      shell.kill("SIGKILL")
      const alive = () => {
        try {
          process.kill(tool, 0)
          return true
        } catch {
          return false
        }
      }
      // It looks for its parent once a second: it ends on its own (the test's timeout is the only deadline).
      while (alive()) await new Promise((r) => setTimeout(r, 200))
      expect(alive()).toBe(false)
      expect(consistent(await target.run(snapshots))).toBe(true)
    })

    it("the integrity pass runs before the recount: --check reports the ring it would discount, a run discounts it, CROWD_DEFENSE=off skips it", async () => {
      const inputs = Array.from({ length: 5 }, () => freshInput({ seed: { up: 10, down: 2 } }))
      await target.run(
        Effect.gen(function* () {
          yield* CatalogStore.use((c) => c.upsert(inputs))
          const registry = yield* AgentRegistry
          const ledger = yield* VoteLedger
          // 12 agents vote up the same 5 products within seconds: a ring.
          for (let i = 0; i < 12; i++) {
            const agent = yield* registry.register({
              id: randomUUID() as AgentId,
              name: `ring-${i}`,
              contact: null,
              keyHash: `ring-hash-${i}`,
              keyHint: "pdk_ring",
              registeredFrom: null
            })
            for (const input of inputs)
              yield* ledger.cast({ entity: input.id, voter: agentVoter(agent.id), direction: "up", network: `net-${i}` })
          }
        })
      )
      const off = await spawnApp(BIN, ["--check", "--report", join(dir, "off.json")], { ...target.env, CROWD_DEFENSE: "off" }).done
      expect(off.code, off.stderr).toBe(0)
      expect(off.stdout).not.toMatch(/integrity pass/)
      expect(JSON.parse(readFileSync(join(dir, "off.json"), "utf8")).integrity).toBeNull()

      const report = join(dir, "check.json")
      const check = await cli(["--check", "--report", report])
      expect(check.code, check.stderr).toBe(1)
      expect(check.stdout).toMatch(
        /^integrity pass \(--check: report only\): read 60 votes, 1 voter group \(1 new\), would discount 60 votes and count 0 held votes/m
      )
      // A check saves nothing: it does not point at a group `productdir-agents group` could not show.
      expect(check.stdout).toMatch(
        /^ {2}new group [0-9a-f-]{36} \(lockstep\): 12 members, 5 products, 60 votes; not saved by --check: a pass saves it$/m
      )
      const checked = JSON.parse(readFileSync(report, "utf8")) as {
        integrity: { applied: boolean; discounted: number; groups: Array<{ members: number }> }
      }
      expect(checked.integrity).toMatchObject({ applied: false, discounted: 60, groups: [{ members: 12 }] })
      expect((await target.run(snapshots)).filter((s) => inputs.some((i) => i.id === s.id)).map((s) => s.stored)).toEqual(
        Array(5).fill({ up: 22, down: 2 })
      )

      const applied = await cli([])
      expect(applied.code, applied.stderr).toBe(0)
      expect(applied.stdout).toMatch(
        /^ {2}new group [0-9a-f-]{36} \(lockstep\): 12 members, 5 products, 60 votes; productdir-agents group [0-9a-f-]{36}$/m
      )
      expect(applied.stdout).toMatch(
        /1 voter group \(1 new\), 60 votes discounted, 0 held votes counted, 0 agents gained standing, 5 products recounted/
      )
      expect(applied.stdout).toMatch(/drifted 0, repaired 0/)
      expect((await target.run(snapshots)).filter((s) => inputs.some((i) => i.id === s.id)).map((s) => s.stored)).toEqual(
        Array(5).fill({ up: 10, down: 2 })
      )
      // Idempotent: the next pass knows the group and changes nothing.
      const again = await cli(["--check"])
      expect(again.code, again.stdout).toBe(0)
      expect(again.stdout).toMatch(/1 voter group \(0 new\), would discount 0 votes/)
    })

    it("an anonymous drip: addresses that vote one product and nothing else, unbacked by its other voters, are discounted as a group", async () => {
      const inputs = Array.from({ length: 5 }, () => freshInput({ seed: { up: 10, down: 2 } }))
      const dripped = inputs[4]!.id as ProductId
      await target.run(
        Effect.gen(function* () {
          yield* CatalogStore.use((c) => c.upsert(inputs))
          const ledger = yield* VoteLedger
          // 30 visitors with a history vote three products each; 30 addresses vote the last one up and nothing else.
          for (let v = 0; v < 30; v++)
            for (const k of [v % 5, (v + 1) % 5, (v + 2) % 5])
              yield* ledger.cast({ entity: inputs[k]!.id, voter: addressVoter(`visitor-${v}`), direction: "up", network: `v-${v}` })
          for (let d = 0; d < 30; d++)
            yield* ledger.cast({ entity: dripped, voter: addressVoter(`drip-${d}`), direction: "up", network: `d-${d}` })
        })
      )
      const visitorsOnTarget = Array.from({ length: 30 }, (_, v) => [v % 5, (v + 1) % 5, (v + 2) % 5]).filter((ks) => ks.includes(4)).length
      const check = await cli(["--check"])
      expect(check.code, check.stderr).toBe(1)
      expect(check.stdout).toMatch(/read 120 votes, 1 voter group \(1 new\), would discount 30 votes/)
      expect(check.stdout).toMatch(/new group [0-9a-f-]{36} \(addresses\): 30 members, 1 product, 30 votes/)
      const applied = await cli([])
      expect(applied.code, applied.stderr).toBe(0)
      const stored = (await target.run(snapshots)).find((s) => s.id === dripped)!.stored
      expect(stored).toEqual({ up: 10 + visitorsOnTarget, down: 2 })
      const again = await cli(["--check"])
      expect(again.code, again.stdout).toBe(0)
    })

    it("a flood of addresses the burst guard holds stays held: --check after --check would count none of it, and a run counts none", async () => {
      const input = freshInput({ seed: { up: 10, down: 2 } })
      const flooded = input.id as ProductId
      await target.run(
        Effect.gen(function* () {
          yield* CatalogStore.use((c) => c.upsert([input]))
          const ledger = yield* VoteLedger
          // 30 addresses vote a cold product down at once: ten count, the burst guard holds the rest.
          for (let d = 0; d < 30; d++)
            yield* ledger.cast({
              entity: flooded,
              voter: addressVoter(`flood-${d}`),
              direction: "down",
              network: `f-${d}`,
              guard: DEFAULT_BURST_GUARD
            })
          expect((yield* ledger.formation(flooded)).held).toBe(20)
        })
      )
      // Each check runs at another phase of the clock's second; each must see the same ledger the same way.
      for (let k = 0; k < 3; k++) {
        const check = await cli(["--check"])
        expect(check.stdout).toMatch(/read 30 votes, 0 voter groups, would discount 0 votes and count 0 held votes/)
        expect(check.code, check.stdout).toBe(0)
      }
      const applied = await cli([])
      expect(applied.code, applied.stderr).toBe(0)
      expect(applied.stdout).toMatch(/0 held votes counted/)
      expect((await target.run(snapshots)).find((s) => s.id === flooded)!.stored).toEqual({ up: 10, down: 12 })
    })

    it("bad flags are usage errors (exit 2) and touch nothing", async () => {
      const both = await cli(["--every", "1m", "--cron", "* * * * *"])
      expect(both.code).toBe(2)
      expect(both.stderr).toContain("pick one schedule")
      const cron = await cli(["--cron", "every tuesday"])
      expect(cron.code).toBe(2)
      expect(cron.stderr).toContain("not a cron expression")
      expect((await cli(["--batch-size", "0"])).code).toBe(2)
      // A schedule that would hammer the database, or never run.
      const tiny = await cli(["--every", "1ms"])
      expect(tiny.code).toBe(2)
      expect(tiny.stderr).toContain("shorter than a second between passes: did you mean 1m?")
      const never = await cli(["--cron", "0 0 30 2 *"])
      expect(never.code).toBe(2)
      expect(never.stderr).toContain("names no date that ever comes")
      // Files that cannot be written are said before any pass, not after one with a stack trace.
      for (const [flag, path, why] of [
        ["--report", join(dir, "missing", "r.json"), "does not exist"],
        ["--report", dir, "it is a folder"],
        ["--metrics-file", join(dir, "missing", "r.prom"), "does not exist"]
      ] as const) {
        const refused = await cli([flag, path])
        expect(refused.code, `${flag} ${path}`).toBe(2)
        expect(refused.stderr).toContain(`${flag} ${path} cannot be written: `)
        expect(refused.stderr).toContain(why)
        expect(refused.stderr).not.toMatch(/\n\s+at /)
        expect(refused.stdout).not.toContain("checked")
      }
    })

    it("a catalog that is not there is said, and not created: a typo in DATA_DIR or DATABASE_URL is no empty catalog", async () => {
      let env: Record<string, string>
      let created: () => boolean
      let drop = () => {}
      if (variant.name === "postgres") {
        const url = new URL(target.env.DATABASE_URL!)
        const admin = new URL(url)
        admin.pathname = "/postgres"
        const name = `productdir_typo_${randomUUID().slice(0, 8)}`
        execFileSync("psql", [admin.href, "-qAtc", `CREATE DATABASE ${name}`])
        drop = () => execFileSync("psql", [admin.href, "-qAtc", `DROP DATABASE ${name}`])
        url.pathname = `/${name}`
        env = { ...target.env, DATABASE_URL: url.href }
        const where = new URL(url)
        created = () =>
          execFileSync("psql", [where.href, "-qAtc", "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"]).toString().trim() !==
          "0"
      } else {
        const missing = join(dir, "no-such-data")
        env = { ...target.env, DATA_DIR: missing }
        created = () => existsSync(missing)
      }
      try {
        // A schedule too: no retry mends a catalog that is not there, so it ends rather than fail every pass.
        for (const args of [["--check"], [], ["--every", "1h"]]) {
          const refused = await spawnApp(BIN, args, env).done
          expect(refused.code, args.join(" ")).toBe(2)
          expect(refused.stderr).toContain("holds no productdir catalog (nothing was created)")
          expect(refused.stderr).not.toMatch(/\n\s+at /)
          expect(created(), args.join(" ")).toBe(false)
        }
      } finally {
        drop()
      }
    })

    it("a schedule holds no store between passes: another run uses the same data meanwhile", async () => {
      await target.run(seed([freshInput()]))
      const run = spawnApp(BIN, ["--every", "1h"], target.env)
      await waitForOutput(run.child, "checked 1 products")
      // Embedded, the data directory is free between passes (an API could start on it); on a server, nothing is held.
      // The summary is printed as the pass ends, a moment before it lets the store go: asked again until then.
      let beside = await cli(["--check"])
      for (let tries = 0; beside.stderr.includes("in use") && tries < 50; tries++) {
        await new Promise((r) => setTimeout(r, 200))
        beside = await cli(["--check"])
      }
      expect(beside.stderr).not.toContain("in use")
      expect(beside.code).toBe(0)
      expect(beside.stdout).toContain("checked 1 products")
      run.child.kill("SIGTERM")
      expect((await run.done).code).toBe(0)
    })

    if (variant.name === "postgres") {
      it("a reconcile running while 1,000 votes are cast ends with counters equal to the ledger", async () => {
        const inputs = Array.from({ length: 20 }, () => freshInput({ seed: { up: 3, down: 1 } }))
        await target.run(
          Effect.gen(function* () {
            yield* CatalogStore.use((c) => c.upsert(inputs))
            const sql = yield* SqlClient.SqlClient
            yield* sql`UPDATE products SET trust_up = trust_up + 7 WHERE id = ${inputs[0]!.id}`
          })
        )
        const run = spawnApp(BIN, ["--every", "1s", "--batch-size", "5"], target.env)
        await waitForOutput(run.child, "checked 20 products")
        await target.run(
          Effect.gen(function* () {
            const ledger = yield* VoteLedger
            yield* Effect.forEach(
              Array.from({ length: 1000 }, (_, i) => i),
              (i) => ledger.cast({ entity: inputs[i % 20]!.id, voter: addressVoter(`live-${i}`), direction: i % 4 === 0 ? "down" : "up" }),
              { concurrency: 20 }
            )
          })
        )
        await waitForOutput(run.child, "checked 20 products")
        run.child.kill("SIGTERM")
        expect((await run.done).code).toBe(0)
        const rows = await target.run(snapshots)
        expect(rows.reduce((n, s) => n + s.ledger.up + s.ledger.down, 0)).toBe(1000)
        expect(consistent(rows)).toBe(true)
      })

      it("a schedule lives through the database going away: the failed pass is said, and the next one runs", async () => {
        await target.run(seed([freshInput()]))
        const url = new URL(target.env.DATABASE_URL!)
        const database = url.pathname.slice(1)
        const admin = new URL(url)
        admin.pathname = "/postgres"
        const psql = (statement: string) => execFileSync("psql", [admin.href, "-qAtc", statement])
        // A failed connection is said at once, not after STORE_CONNECT_TIMEOUT's 30 s of retries.
        const run = spawnApp(BIN, ["--every", "1s"], { ...target.env, STORE_CONNECT_TIMEOUT: "2" })
        await waitForOutput(run.child, "checked 1 products")
        // The database refuses every connection, its sessions ended: a restart, a failover, as a scheduled run meets it.
        psql(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`)
        try {
          psql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`)
          await waitForOutput(run.child, "this pass failed; the next one runs on schedule")
        } finally {
          psql(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`)
        }
        await waitForOutput(run.child, "checked 1 products")
        expect(run.child.exitCode).toBe(null)
        run.child.kill("SIGTERM")
        const stopped = await run.done
        expect(stopped.code).toBe(0)
        expect(stopped.stderr).toContain("cannot use the store")
        expect(stopped.stderr).not.toMatch(/\n\s+at /)
      })

      /** Another runner: holds the job lock until `release()`, which resolves once it let go. */
      const anotherRunner = async () => {
        const release = Effect.runSync(Deferred.make<void>())
        const held = Effect.runSync(Deferred.make<void>())
        const holder = target.run(
          JobLock.use((lock) =>
            lock.withLock("reconcile", { wait: false }, Deferred.succeed(held, undefined).pipe(Effect.andThen(Deferred.await(release))))
          )
        )
        await Effect.runPromise(Deferred.await(held))
        return async () => {
          Effect.runSync(Deferred.succeed(release, undefined))
          await holder
        }
      }

      it("a one-off run stopped before it finished says so and exits 130; a stopped schedule is a clean stop", async () => {
        await target.run(seed([freshInput()]))
        const release = await anotherRunner()
        const waiting = spawnApp(BIN, ["--wait"], target.env)
        await waitForOutput(waiting.child, "waiting for it to finish")
        waiting.child.kill("SIGTERM")
        const stopped = await waiting.done
        await release()
        expect(stopped.code).toBe(130)
        expect(stopped.stderr).toContain("stopped before the pass finished")
        expect(stopped.stderr).not.toMatch(/\n\s+at /)
      })

      it("two runners never work at once: the second skips, or waits with --wait", async () => {
        await target.run(seed([freshInput()]))
        const release = await anotherRunner()
        const skipped = await cli([])
        expect(skipped.code).toBe(0)
        expect(skipped.stdout).toContain("skipped this pass")
        expect(skipped.stdout).not.toContain("checked")
        // A check changes nothing: it needs no turn, and is never a skipped pass reported as "nothing to change".
        const checked = await cli(["--check"])
        expect(checked.stdout).not.toContain("skipped this pass")
        expect(checked.stdout).toMatch(/checked 1 products/)
        const waiting = spawnApp(BIN, ["--wait"], target.env)
        await waitForOutput(waiting.child, "waiting for it to finish")
        await new Promise((r) => setTimeout(r, 500))
        expect(waiting.child.exitCode).toBe(null)
        await release()
        const waited = await waiting.done
        expect(waited.code).toBe(0)
        expect(waited.stdout).toMatch(/checked 1 products/)
      })
    }
  })
}
