/**
 * productdir-publishers as an operator runs it: a real process on a real store (PGlite, and PostgreSQL when
 * DATABASE_URL is set), listing and showing publishers, suspending and restoring one with a reason, and reading the
 * audit trail those actions (and the publishers' own) left.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { resolve } from "node:path"
import { AuditTrail, CatalogStore, type Publisher, type PublisherId, PublisherStore, publisherSubject } from "@productdir/domain"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { spawnApp, type TestTarget, testTargets } from "@productdir/store-postgres/testing"

const BIN = resolve(import.meta.dirname, "..", "bin", "productdir-publishers.js")

const VERIFIED = "8a1f0c2e-4b6d-4e8f-9a0b-1c2d3e4f5a6b" as PublisherId
const PENDING = "2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901" as PublisherId

const publisher = (id: PublisherId, domain: string, createdAt: string): Publisher => ({
  id,
  domain,
  status: "pending",
  token: `token-${domain}`,
  method: null,
  keyHash: null,
  createdAt: new Date(createdAt),
  verifiedAt: null,
  failedChecks: 0,
  checkedAt: null,
  checkNote: null,
  suspendedAt: null
})

/** One verified publisher (its proof read by DNS), one pending claim, and the verification in the trail. */
const [product] = sampleCatalog()

const seed = Effect.gen(function* () {
  yield* CatalogStore.use((catalog) => catalog.upsert([product!]))
  const store = yield* PublisherStore
  yield* store.claim(publisher(VERIFIED, "acme.example", "2026-12-01T10:00:00Z"))
  yield* store.claim(publisher(PENDING, "globex.example", "2026-12-02T09:00:00Z"))
  yield* store.verify(VERIFIED, { method: "dns", keyHash: "hash-acme", at: new Date("2026-12-01T10:05:00Z") })
  yield* AuditTrail.use((trail) =>
    trail.record({
      at: new Date("2026-12-01T10:05:00Z"),
      actor: { kind: "publisher", domain: "acme.example" },
      action: "verify",
      subject: publisherSubject(VERIFIED),
      reason: null,
      detail: "proved acme.example by a DNS TXT record"
    })
  )
})

reportLeftOut("productdir-publishers", storesLeftOut())
for (const variant of testTargets()) {
  describe(`productdir-publishers on ${variant.name}`, { timeout: 600_000 }, () => {
    let target: TestTarget
    const cli = (args: ReadonlyArray<string>) => spawnApp(BIN, args, target.env).done

    beforeEach(async () => {
      target = await variant.make()
      await target.run(seed)
    })
    afterEach(async () => {
      await target.dispose()
    })

    it("lists and shows publishers, as text and as JSON", async () => {
      const listed = await cli(["list"])
      expect(listed.code, listed.stderr).toBe(0)
      expect(listed.stdout).toMatch(/acme\.example\s+verified\s+dns/)
      expect(listed.stdout).toMatch(/globex\.example\s+pending/)
      const json = JSON.parse((await cli(["list", "--json"])).stdout) as Array<{ publisher_id: string; status: string }>
      expect(json.map((p) => [p.publisher_id, p.status])).toEqual([
        [VERIFIED, "verified"],
        [PENDING, "pending"]
      ])
      const shown = await cli(["show", VERIFIED])
      expect(shown.code).toBe(0)
      expect(shown.stdout).toContain("domain       acme.example")
      expect(shown.stdout).toContain("publisher acme.example  verify")
    })

    it("suspends and restores with a reason: the key stops and comes back, and the trail says who, when and why", async () => {
      const suspended = await cli(["suspend", VERIFIED, "--reason", "Listing reported as malware, under review"])
      expect(suspended.code, suspended.stderr).toBe(0)
      expect(suspended.stdout).toContain("suspended the publisher of acme.example")
      expect(await target.run(PublisherStore.use((s) => s.byKeyHash("hash-acme")))).toEqual(Option.none())
      // Again: it is suspended already (exit 1, saying so).
      const again = await cli(["suspend", VERIFIED, "--reason", "twice"])
      expect(again.code).toBe(1)
      expect(again.stderr).toContain("is suspended: only a verified one can be suspended")

      const restored = await cli(["restore", VERIFIED, "--reason", "Review found nothing", "--json"])
      expect(restored.code, restored.stderr).toBe(0)
      expect(JSON.parse(restored.stdout)).toMatchObject({ status: "verified", failed_checks: 0 })
      expect(Option.isSome(await target.run(PublisherStore.use((s) => s.byKeyHash("hash-acme"))))).toBe(true)

      const trail = JSON.parse((await cli(["audit", "--publisher", VERIFIED, "--json"])).stdout) as Array<{
        actor: string
        action: string
        reason: string | null
      }>
      expect(trail.map((e) => [e.actor, e.action, e.reason])).toEqual([
        ["operator", "restore", "Review found nothing"],
        ["operator", "suspend", "Listing reported as malware, under review"],
        ["publisher acme.example", "verify", null]
      ])
      expect((await cli(["audit", "--limit", "1"])).stdout).toContain("operator  restore")
    })

    it("takes a product down with its reason, and brings it back; both in the audit trail", async () => {
      const slug = (await target.run(CatalogStore.use((c) => c.find(product!.id)))).slug
      const down = await cli(["take-down", slug, "--reason", "Malware in its installer, confirmed"])
      expect(down.code, down.stderr).toBe(0)
      expect(down.stdout).toContain("410")
      const removed = await target.run(Effect.flip(CatalogStore.use((c) => c.find(product!.id))))
      expect(removed).toMatchObject({ _tag: "ProductRemoved", reason: "Malware in its installer, confirmed" })
      const again = await cli(["take-down", product!.id, "--reason", "twice"])
      expect(again.code).toBe(1)
      expect(again.stderr).toContain("is removed already")

      const back = await cli(["bring-back", product!.id, "--reason", "The vendor shipped a clean build"])
      expect(back.code, back.stderr).toBe(0)
      expect((await target.run(CatalogStore.use((c) => c.find(product!.id)))).id).toBe(product!.id)
      const trail = JSON.parse((await cli(["audit", "--product", product!.id, "--json"])).stdout) as Array<{
        action: string
        reason: string
      }>
      expect(trail.map((e) => [e.action, e.reason])).toEqual([
        ["bring-back", "The vendor shipped a clean build"],
        ["take-down", "Malware in its installer, confirmed"]
      ])
      const unknown = await cli(["take-down", "no-such-product", "--reason", "x"])
      expect(unknown.code).toBe(1)
    })

    it("wrong ids, a missing reason and a pending claim are refused, naming what to do", async () => {
      const malformed = await cli(["show", "acme"])
      expect(malformed.code).toBe(2)
      expect(malformed.stderr).toContain('"acme" is not a publisher id')
      const unknown = await cli(["show", "00000000-0000-4000-8000-000000000000"])
      expect(unknown.code).toBe(1)
      expect(unknown.stderr).toContain("productdir-publishers list shows every publisher")
      const reasonless = await cli(["suspend", VERIFIED])
      expect(reasonless.code).toBe(2)
      const blank = await cli(["suspend", VERIFIED, "--reason", "  "])
      expect(blank.code).toBe(2)
      expect(blank.stderr).toContain("--reason must say why")
      const pending = await cli(["restore", PENDING, "--reason", "why not"])
      expect(pending.code).toBe(1)
      expect(pending.stderr).toContain("globex.example is pending")
    })
  })
}
