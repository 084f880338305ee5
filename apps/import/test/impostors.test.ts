/**
 * Records that point inward or impersonate (issue 59), through the import CLI as an operator runs it: websites that
 * would send an agent to a metadata service, a local admin page or another host than the one it reads are refused
 * naming the field; a name that looks like another product's (a Cyrillic "а") is refused for a new product, flagged
 * for one already in the catalog (and refused by --strict). Search and A2A read look-alikes in apps/api's community-text test.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { CatalogStore, fromImportRecord, type ImportRecord, type ProductId } from "@productdir/domain"
import { generateRecord } from "@productdir/fixtures/generator"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli, type Target, targets, workDir } from "./cli.ts"

type Generated = ImportRecord & { id: string }
const record = (seed: number, changes: Partial<ImportRecord> = {}): Generated => ({ ...(generateRecord(seed, 0) as Generated), ...changes })
const ndjson = (rs: ReadonlyArray<unknown>) => `${rs.map((r) => JSON.stringify(r)).join("\n")}\n`

/** A record whose website (both fields an import takes it from) is `url`. */
const withWebsite = (seed: number, url: string): Generated => {
  const r = record(seed)
  return { ...r, ai_optimization: { ...r.ai_optimization, seeded_url: url }, trust_signals: { website: url } }
}

const HOSTILE = [
  "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
  "http://127.0.0.1:8080/admin/delete?all=1",
  "https://tallyhouse.example@evil.example/login",
  "http://2852039166/",
  "http://[fd00::1]/",
  "http://intranet/wiki",
  "https://build.internal/",
  "https://printer.local/"
]

/** "Tallyhouse" with a Cyrillic "а" (U+0430) for its "a". */
const IMPOSTOR = "T\u0430llyhouse"

for (const variant of targets()) {
  describe(`impostor records on ${variant.name}`, { timeout: 600_000 }, () => {
    let target: Target
    let dir: string
    const file = (name: string, text: string) => {
      const path = join(dir, name)
      writeFileSync(path, text)
      return path
    }
    const cli = (args: ReadonlyArray<string>) => runCli(args, target.env)

    beforeEach(async () => {
      target = await variant.make()
      dir = workDir()
    })
    afterEach(async () => {
      await target.dispose()
      rmSync(dir, { recursive: true, force: true })
    })

    it("websites to an IP address, a user before the host or an internal name are refused, naming the field", async () => {
      const good = withWebsite(1, "https://good.example/home")
      const run = await cli([file("sites.ndjson", ndjson([good, ...HOSTILE.map((url, i) => withWebsite(10 + i, url))]))])
      expect(run.code).toBe(1)
      expect(run.stdout).toMatch(/created\s+1/)
      expect(run.stdout).toMatch(new RegExp(`rejected\\s+${HOSTILE.length}`))
      expect(run.stderr).toContain(
        "line 2: rejected: ai_optimization.seeded_url: must name a public host, not an IP address (169.254.169.254)"
      )
      expect(run.stderr).toContain("line 3: rejected: ai_optimization.seeded_url: must name a public host, not an IP address (127.0.0.1)")
      expect(run.stderr).toMatch(
        /line 4: rejected: ai_optimization\.seeded_url: must not name a user before its host .* goes to evil\.example/
      )
      expect(run.stderr).toContain("trust_signals.website: must not name a user before its host")
      // The decimal form of 169.254.169.254 is read as a browser reads it.
      expect(run.stderr).toContain(
        "line 5: rejected: ai_optimization.seeded_url: must name a public host, not an IP address (169.254.169.254)"
      )
      expect(run.stderr).toContain('"intranet" is a name only a local network knows')
      expect(run.stderr).toContain(".internal names are not on the public internet")
      expect(run.stderr).toContain(".local names are not on the public internet")
    })

    it("a new product named like another is refused; one already in the catalog is flagged, --strict refuses it", async () => {
      const real = record(2, { name: "Tallyhouse" })
      const first = await cli([file("real.ndjson", ndjson([real]))])
      expect(first.code, first.stderr).toBe(0)
      const impostor = record(3, { name: IMPOSTOR })
      const refused = await cli([file("impostor.ndjson", ndjson([impostor]))])
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(
        'line 1: rejected: name: looks like "Tallyhouse" (tallyhouse), another product\'s name: it differs only by characters that look the same (Unicode TR39 confusables): a new product may not take a look-alike name'
      )

      // One that came in before the check (written to the store directly) is flagged when it is imported again.
      await target.run(
        CatalogStore.use((c) => c.upsert([fromImportRecord(impostor as ImportRecord, impostor.id as ProductId).input])).pipe(Effect.asVoid)
      )
      const flagged = await cli([file("again.ndjson", ndjson([impostor]))])
      expect(flagged.code, flagged.stderr).toBe(0)
      expect(`${flagged.stdout}${flagged.stderr}`).toContain('name looks like "Tallyhouse" (tallyhouse)')
      expect(`${flagged.stdout}${flagged.stderr}`).toContain("flagged for review (--strict refuses it)")
      const strict = await cli([file("strict.ndjson", ndjson([impostor])), "--strict"])
      expect(strict.code).toBe(1)
      expect(strict.stderr).toContain('rejected: name: looks like "Tallyhouse" (tallyhouse)')
    })
  })
}
