/**
 * productdir-agents as an operator runs it: a real process on a real store
 * (PGlite, and PostgreSQL when DATABASE_URL is set), listing, showing, revoking
 * and restoring agents whose votes are in the ledger.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { resolve } from "node:path"
import { type AgentId, AgentRegistry, addressVoter, agentVoter, CatalogStore, VoteLedger } from "@productdir/domain"
import { spawnApp, type TestTarget, testTargets } from "@productdir/store-postgres/testing"
import { sampleCatalog } from "@productdir/fixtures/sample"

const BIN = resolve(import.meta.dirname, "..", "bin", "productdir-agents.js")

const [first, second] = sampleCatalog()

const AGENT = "5d0c9a52-8f61-4a47-b3d2-0f7e3b1c9a20" as AgentId
const OTHER = "0f3e7a1c-2b4d-4c6e-8f9a-1b2c3d4e5f60" as AgentId

/** Two agents, one with votes on two products beside an anonymous vote. */
const seed = Effect.gen(function* () {
  yield* CatalogStore.use((c) => c.upsert([first!, second!]))
  const registry = yield* AgentRegistry
  yield* registry.register({
    id: AGENT,
    name: "research-bot",
    contact: "mailto:ops@example.com",
    keyHash: "h1",
    keyHint: "pdk_abcd",
    registeredFrom: "0123abcd"
  })
  yield* registry.register({ id: OTHER, name: "quiet-bot", contact: null, keyHash: "h2", keyHint: "pdk_wxyz", registeredFrom: "0123abcd" })
  const ledger = yield* VoteLedger
  yield* ledger.cast({ entity: first!.id, voter: agentVoter(AGENT), direction: "up" })
  yield* ledger.cast({ entity: second!.id, voter: agentVoter(AGENT), direction: "down", reason: "Crashes on import" })
  yield* ledger.cast({ entity: first!.id, voter: addressVoter("someone"), direction: "up" })
})

const counters = Effect.gen(function* () {
  const catalog = yield* CatalogStore
  return [(yield* catalog.find(first!.id)).counters, (yield* catalog.find(second!.id)).counters]
})

for (const variant of testTargets()) {
  describe(`productdir-agents on ${variant.name}`, { timeout: 180_000 }, () => {
    let target: TestTarget
    const cli = (args: ReadonlyArray<string>) => spawnApp(BIN, args, target.env).done

    beforeEach(async () => {
      target = await variant.make()
      await target.run(seed)
    })
    afterEach(async () => {
      await target.dispose()
    })

    it("lists every agent with its votes and standing, as text and as JSON", async () => {
      const text = await cli(["list"])
      expect(text.code, text.stderr).toBe(0)
      const lines = text.stdout.trim().split("\n")
      expect(lines[0]).toMatch(/^AGENT\s+KIND\s+NAME\s+VOTES\s+STANDING\s+CREATED$/)
      expect(lines.find((l) => l.startsWith(AGENT))).toMatch(/registered\s+research-bot\s+2\s+active/)
      expect(lines.find((l) => l.startsWith(OTHER))).toMatch(/quiet-bot\s+0\s+active/)

      const json = await cli(["list", "--json"])
      const agents = JSON.parse(json.stdout) as Array<{ agent_id: string; votes: number; revoked_at: string | null; key_hint: string }>
      expect(agents.map((a) => [a.agent_id, a.votes, a.revoked_at, a.key_hint])).toEqual(
        expect.arrayContaining([
          [AGENT, 2, null, "pdk_abcd"],
          [OTHER, 0, null, "pdk_wxyz"]
        ])
      )
    })

    it("revoke stops counting the agent's votes at once, keeps them, and restore counts them again", async () => {
      const before = await target.run(counters)
      const revoke = await cli(["revoke", AGENT])
      expect(revoke.code, revoke.stderr).toBe(0)
      expect(revoke.stdout).toContain(`revoked agent ${AGENT} (research-bot): 2 votes no longer count; 2 products recounted`)
      expect(revoke.stdout).toContain(`${first!.id}  up ${before[0]!.up} -> ${before[0]!.up - 1}`)
      expect(await target.run(counters)).toEqual([
        { up: before[0]!.up - 1, down: before[0]!.down },
        { up: before[1]!.up, down: before[1]!.down - 1 }
      ])
      const shown = await cli(["show", AGENT])
      expect(shown.stdout).toMatch(/standing\s+revoked \d{4}-/)
      expect(shown.stdout).toMatch(/votes\s+2 \(kept in the ledger, not counted\)/)
      expect((await cli(["list", "--revoked"])).stdout).toContain(AGENT)
      expect((await cli(["list", "--revoked"])).stdout).not.toContain(OTHER)

      const again = await cli(["revoke", AGENT])
      expect(again.stdout).toContain("is already revoked: nothing changed")

      const restore = await cli(["restore", AGENT, "--json"])
      expect(restore.code, restore.stderr).toBe(0)
      expect(JSON.parse(restore.stdout)).toMatchObject({ agent_id: AGENT, changed: true, votes: 2 })
      expect(await target.run(counters)).toEqual(before)
    })

    it("shows one agent; an unknown id exits 1 and a malformed one 2, each with one line that says so", async () => {
      const before = await target.run(counters)
      const shown = await cli(["show", AGENT])
      expect(shown.code).toBe(0)
      expect(shown.stdout).toMatch(/name\s+research-bot/)
      expect(shown.stdout).toMatch(/proof\s+key pdk_abcd…/)
      expect(shown.stdout).toMatch(/from\s+network 0123abcd/)
      const unknown = await cli(["show", "00000000-0000-4000-8000-000000000000"])
      expect(unknown.code).toBe(1)
      expect(unknown.stderr.trim()).toBe(
        'productdir-agents: No agent has the id "00000000-0000-4000-8000-000000000000". productdir-agents list shows every agent.'
      )
      const malformed = await cli(["revoke", "research-bot"])
      expect(malformed.code).toBe(2)
      expect(malformed.stderr).toContain('"research-bot" is not an agent id')
      // Neither refusal changed anything.
      expect(await target.run(counters)).toEqual(before)
      expect((await cli(["show", AGENT])).stdout).toMatch(/standing\s+active/)
    })
  })
}
