/**
 * An import whose store fails part-way (the connection lost under it, the database gone) says what it committed
 * before, and that a rerun finishes the job; not "check DATABASE_URL", which was right. Against an embedded
 * database this test owns and shares, reached through a proxy it cuts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { generateRecord } from "@productdir/fixtures/generator"
import { layerPglite, SHARING_TOOL } from "@productdir/store-postgres"
import { embeddedSocketPath, waitForOutput } from "@productdir/store-postgres/testing"
import { ConnectionProxy } from "@productdir/testkit"
import { spawnCli } from "./cli.ts"

describe("an import whose store fails part-way", { timeout: 600_000 }, () => {
  it("prints what it committed, then one line: the store failed after N records, which stay, and a rerun finishes", async () => {
    const root = mkdtempSync(join(tmpdir(), "productdir-import-cut-"))
    const dataDir = join(root, "data")
    const scope = Effect.runSync(Scope.make())
    try {
      const proxy = await Effect.runPromise(
        Effect.gen(function* () {
          yield* Layer.build(layerPglite({ dataDir, role: { tool: SHARING_TOOL, share: true } }))
          return yield* ConnectionProxy.make({ path: embeddedSocketPath(dataDir) }, { database: "postgres" })
        }).pipe(Scope.provide(scope))
      )
      const file = join(root, "catalog.ndjson")
      writeFileSync(file, `${Array.from({ length: 6_000 }, (_, i) => JSON.stringify(generateRecord(41, i))).join("\n")}\n`)
      const run = spawnCli([file, "--batch-size", "50"], { DATABASE_URL: proxy.url, LOG_LEVEL: "debug" })
      // A few batches in, the database is gone: connections cut, new ones refused.
      await waitForOutput(run.child, "150 so far")
      await Effect.runPromise(Effect.andThen(proxy.pause, proxy.cut))
      const done = await run.done
      expect(done.code, done.stderr).toBe(2)
      const committed = Number(/stopped part-way through .*: ([\d,]+) records/.exec(done.stdout)?.[1]?.replaceAll(",", ""))
      expect(committed).toBeGreaterThanOrEqual(150)
      expect(committed).toBeLessThan(6_000)
      const last = done.stderr.trim().split("\n").at(-1)!
      expect(last).toMatch(
        /^productdir-import: the store failed part-way \(.+\) after [\d,]+ records were committed; they stay\. Run the same import again to finish it\.$/
      )
      expect(done.stderr).not.toContain("Check DATABASE_URL")
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      rmSync(root, { recursive: true, force: true })
    }
  })
})
