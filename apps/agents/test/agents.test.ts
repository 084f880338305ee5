/**
 * productdir-agents as an operator runs it: a real process on a real store
 * (PGlite, and PostgreSQL when DATABASE_URL is set), listing, showing, revoking
 * and restoring agents whose votes are in the ledger.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { type AgentId, AgentRegistry, addressVoter, agentVoter, CatalogStore, IntegrityLedger, VoteLedger } from "@productdir/domain"
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

reportLeftOut("productdir-agents", storesLeftOut())
for (const variant of testTargets()) {
  describe(`productdir-agents on ${variant.name}`, { timeout: 600_000 }, () => {
    let target: TestTarget
    const cli = (args: ReadonlyArray<string>) => spawnApp(BIN, args, target.env).done

    beforeEach(async () => {
      target = await variant.make()
      await target.run(seed)
    })
    afterEach(async () => {
      await target.dispose()
    })

    if (variant.name === "pglite") {
      it("a DATA_DIR that holds no catalog is said, and not created", async () => {
        const parent = mkdtempSync(join(tmpdir(), "productdir-agents-typo-"))
        const missing = join(parent, "no-such-data")
        try {
          for (const args of [["list"], ["groups"]]) {
            const refused = await spawnApp(BIN, args, { ...target.env, DATA_DIR: missing }).done
            expect(refused.code, args.join(" ")).toBe(2)
            expect(refused.stderr).toContain("holds no productdir catalog (nothing was created)")
            expect(existsSync(missing)).toBe(false)
          }
        } finally {
          rmSync(parent, { recursive: true, force: true })
        }
      })
    }

    it("lists every agent with its votes and standing, as text and as JSON", async () => {
      const text = await cli(["list"])
      expect(text.code, text.stderr).toBe(0)
      const lines = text.stdout.trim().split("\n")
      // Status (active or revoked) and standing (its votes count at once in a burst) are two columns.
      expect(lines[0]).toMatch(/^AGENT\s+KIND\s+NAME\s+VOTES\s+STATUS\s+STANDING\s+CREATED$/)
      expect(lines.find((l) => l.startsWith(AGENT))).toMatch(/registered\s+research-bot\s+2\s+active\s+none\s/)
      expect(lines.find((l) => l.startsWith(OTHER))).toMatch(/quiet-bot\s+0\s+active\s+none\s/)

      const json = await cli(["list", "--json"])
      const agents = JSON.parse(json.stdout) as Array<{ agent_id: string; votes: number; revoked_at: string | null; key_hint: string }>
      expect(agents.map((a) => [a.agent_id, a.votes, a.revoked_at, a.key_hint])).toEqual(
        expect.arrayContaining([
          [AGENT, 2, null, "pdk_abcd"],
          [OTHER, 0, null, "pdk_wxyz"]
        ])
      )
    })

    it("a name is printed on one line as it is: line breaks and invisible characters as escapes, never as a forged row", async () => {
      const FORGER = "7a1c0f3e-2b4d-4c6e-8f9a-1b2c3d4e5f61" as AgentId
      // What POST /agents stores: a line break is storable text, and so is a zero-width space.
      const name = `research\u200b-bot\n${OTHER}  registered  trusted-bot  999  active  yes`
      await target.run(
        AgentRegistry.use((registry) =>
          registry.register({
            id: FORGER,
            name,
            contact: "ops\t@example.com",
            keyHash: "h3",
            keyHint: "pdk_qrst",
            registeredFrom: "4567cdef"
          })
        )
      )
      const text = await cli(["list"])
      expect(text.code, text.stderr).toBe(0)
      const lines = text.stdout.trim().split("\n")
      // One row for each agent: the name's line break is no row of its own.
      expect(lines).toHaveLength(4)
      expect(lines.filter((l) => l.startsWith(OTHER))).toHaveLength(1)
      expect(lines.find((l) => l.startsWith(FORGER))).toContain(`research\\u{200b}-bot\\u{a}${OTHER}`)
      const shown = await cli(["show", FORGER])
      expect(shown.stdout).toContain("name      research\\u{200b}-bot\\u{a}")
      expect(shown.stdout).toContain("contact   ops\\u{9}@example.com")
      // Programs read the name as it was sent.
      const json = JSON.parse((await cli(["list", "--json"])).stdout) as Array<{ agent_id: string; name: string }>
      expect(json.find((a) => a.agent_id === FORGER)?.name).toBe(name)
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
      expect(shown.stdout).toMatch(/status\s+revoked \d{4}-/)
      expect(shown.stdout).toMatch(/standing\s+none: in a burst its votes wait for the integrity pass/)
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
      expect((await cli(["show", AGENT])).stdout).toMatch(/status\s+active/)
    })

    it("lists voter groups with their evidence, shows one, and confirms or clears it, recounting its products", async () => {
      const none = await cli(["groups"])
      expect([none.code, none.stdout.trim()]).toEqual([0, "no suspected voter groups (--all shows confirmed and cleared ones too)"])
      const GROUP = "7e57a9b0-1c2d-4e3f-8a9b-0c1d2e3f4a5b"
      const members = [`agent:${OTHER}`, `agent:${AGENT}`].sort()
      await target.run(
        IntegrityLedger.use((integrity) =>
          integrity.apply(
            {
              groups: [
                {
                  id: GROUP,
                  evidence: {
                    method: "lockstep",
                    members,
                    products: [first!.id],
                    windows: [{ product: first!.id, from: "2026-11-20T10:00:00.000Z", to: "2026-11-20T10:01:00.000Z" }],
                    networks: [{ network: "0123abcd", votes: 1 }],
                    votes: 1
                  },
                  votes: [{ productId: first!.id, voter: `agent:${AGENT}` }],
                  discount: true
                }
              ],
              release: []
            },
            new Date()
          )
        )
      )
      const discounted = await target.run(counters)
      const listed = await cli(["groups"])
      expect(listed.code, listed.stderr).toBe(0)
      expect(listed.stdout.split("\n")[0]).toMatch(/^GROUP\s+STATUS\s+METHOD\s+MEMBERS\s+PRODUCTS\s+VOTES\s+FOUND$/)
      expect(listed.stdout).toMatch(new RegExp(`${GROUP}\\s+suspected\\s+lockstep\\s+2\\s+1\\s+1`))
      const shown = await cli(["group", GROUP.toUpperCase()])
      expect(shown.code, shown.stderr).toBe(0)
      expect(shown.stdout).toMatch(/method\s+lockstep: its members voted the same products within the same hours/)
      expect(shown.stdout).toContain(`  ${first!.id}  2026-11-20T10:00:00.000Z .. 2026-11-20T10:01:00.000Z`)
      expect(shown.stdout).toContain(`  agent:${AGENT}`)
      expect(shown.stdout).toContain("  0123abcd  1 vote")

      const cleared = await cli(["clear", GROUP])
      expect(cleared.code, cleared.stderr).toBe(0)
      expect(cleared.stdout).toMatch(
        new RegExp(`^cleared group ${GROUP}: 1 vote counts again, and no later pass discounts it; 1 product recounted`)
      )
      expect((await target.run(counters))[0]).toEqual({ up: discounted[0]!.up + 1, down: discounted[0]!.down })
      expect((await cli(["clear", GROUP])).stdout).toMatch(/is already cleared: nothing changed/)
      expect((await cli(["groups"])).stdout.trim()).toMatch(/^no suspected voter groups/)
      expect((await cli(["groups", "--all", "--json"])).stdout).toContain('"status": "cleared"')

      const confirmed = await cli(["confirm", GROUP, "--json"])
      expect(confirmed.code, confirmed.stderr).toBe(0)
      expect(JSON.parse(confirmed.stdout)).toMatchObject({ group_id: GROUP, status: "confirmed", changed: true, votes_moved: 1 })
      expect(await target.run(counters)).toEqual(discounted)

      // A well-formed id no group has: exit 1. Not an id at all: a usage error, exit 2, as for agents.
      const unknown = await cli(["confirm", "00000000-0000-4000-8000-000000000000"])
      expect(unknown.code).toBe(1)
      expect(unknown.stderr.trim()).toBe(
        "productdir-agents: No group has the id 00000000-0000-4000-8000-000000000000. productdir-agents groups --all shows every group."
      )
      for (const command of ["group", "confirm", "clear"]) {
        const malformed = await cli([command, "no-such-group"])
        expect(malformed.code, command).toBe(2)
        expect(malformed.stderr, command).toContain('"no-such-group" is not a group id')
      }
    })
  })
}
