/**
 * Identity and limits across processes (the issue: limits lived in each
 * process, so N processes allowed N times the limit). Real API processes over
 * real HTTP: two on one PostgreSQL database when DATABASE_URL is set; on the
 * embedded store, the one API a data directory allows, with the operators' CLI
 * beside it. Votes, registrations and revocations alternate between the
 * processes, and every limit holds as if there were one.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sampleRecords } from "@productdir/fixtures/sample"
import { freshDatabaseUrl } from "@productdir/store-postgres/testing"
import { AGENTS_BIN, json, run, signalGroup, startApi, type Started, vote } from "./processes.ts"
import { makeAgentKey, serveKeyDirectory, signedHeaders } from "./signedAgent.ts"

const sample = sampleRecords()
const server = process.env.DATABASE_URL

const settings = {
  TRUST_PROXY: "1",
  VOTE_RATE_PER_VOTER: "5",
  VOTE_RATE_PER_ADDRESS: "1000",
  AGENT_REGISTRATIONS_PER_ADDRESS: "3",
  SIGNED_AGENTS_HTTP_HOSTS: "127.0.0.1",
  SEED: "sample"
}

const counters = async (base: string, id: string) =>
  (await json<{ trust: { trust_up: number; trust_down: number } }>(`${base}/products/${id}`)).body.trust

type Trust = Awaited<ReturnType<typeof counters>>

/**
 * Reads `id` from `base` until `expected` holds of its counters (a change made through another process reaches this
 * one within a second, which bench:api measures; the deadline here is one no busy machine reaches); answers the last
 * counters seen.
 */
const countersReach = async (base: string, id: string, expected: (trust: Trust) => boolean) => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const seen = await counters(base, id)
    if (expected(seen) || Date.now() > deadline) return seen
    await new Promise((r) => setTimeout(r, 50))
  }
}

const register = async (base: string, name: string, from: string) =>
  json<{ agent_id: string; api_key: string }>(`${base}/agents`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": from },
    body: JSON.stringify({ name })
  })

describe(`identity and limits across API processes (${server ? "two processes on one PostgreSQL database" : "embedded: one API and the CLI"})`, {
  timeout: 180_000
}, () => {
  const scope = Effect.runSync(Scope.make())
  const started: Array<Started> = []
  let bases: Array<string> = []
  let env: Record<string, string> = {}
  let dir: string | undefined
  /** The processes in turn: the i-th request goes to this one. */
  const at = (i: number) => bases[i % bases.length]!

  beforeAll(async () => {
    if (server) {
      const { url } = await Effect.runPromise(Scope.provide(freshDatabaseUrl(server), scope))
      env = { ...settings, DATABASE_URL: url }
    } else {
      dir = join(mkdtempSync(join(tmpdir(), "productdir-identity-")), "data")
      env = { ...settings, DATA_DIR: dir }
    }
    const first = startApi(env)
    started.push(first)
    bases = [await first.url]
    if (server) {
      const second = startApi(env)
      started.push(second)
      bases.push(await second.url)
    }
  })

  afterAll(async () => {
    for (const s of started) signalGroup(s.child, "SIGKILL")
    await Promise.all(started.map((s) => s.exited))
    await Effect.runPromise(Scope.close(scope, Exit.void))
    if (dir) rmSync(join(dir, ".."), { recursive: true, force: true })
  })

  it("100 unproven votes from one address, rotating voter_id and a spoofed X-Forwarded-For prefix, move a product by one", async () => {
    const target = sample[0]!.id!
    const before = await counters(at(0), target)
    const replies = []
    for (let i = 0; i < 100; i++) {
      replies.push(await vote(at(i), { entity_id: target, voter_id: `rotating-${i}` }, { "x-forwarded-for": `10.${i}.0.1, 203.0.113.5` }))
    }
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1)
    expect(replies.every((r) => [200, 201, 429].includes(r.status))).toBe(true)
    const after = await countersReach(at(1), target, (t) => t.trust_up > before.trust_up)
    expect(after.trust_up - before.trust_up).toBe(1)
  })

  it("three registered agents count three; an agent's repeated vote on the other process is unchanged; a bad key is 401 on each", async () => {
    const target = sample[1]!.id!
    const before = await counters(at(0), target)
    const agents = await Promise.all([0, 1, 2].map(async (i) => (await register(at(i), `agent-${i}`, `198.51.100.${i + 1}`)).body))
    for (const [i, agent] of agents.entries()) {
      const reply = await vote(at(i), { entity_id: target }, { authorization: `Bearer ${agent.api_key}` })
      expect([reply.status, reply.body.counted_as]).toEqual([201, "agent"])
    }
    const repeat = await vote(at(1), { entity_id: target }, { authorization: `Bearer ${agents[0]!.api_key}` })
    expect([repeat.status, repeat.body.status]).toEqual([200, "unchanged"])
    expect((await countersReach(at(1), target, (t) => t.trust_up >= before.trust_up + 3)).trust_up - before.trust_up).toBe(3)
    for (const base of bases) {
      const bad = await vote(base, { entity_id: target }, { authorization: `Bearer pdk_${"Q".repeat(43)}` })
      expect(bad.status).toBe(401)
      expect(bad.headers.get("www-authenticate")).toMatch(/^Bearer/)
    }
  })

  it("registration and vote limits hold across the processes", async () => {
    const from = "192.0.2.77"
    const registrations = []
    for (let i = 0; i < 4; i++) registrations.push(await register(at(i), `crowd-${i}`, from))
    expect(registrations.map((r) => r.status)).toEqual([201, 201, 201, 429])
    expect(Number(registrations[3]!.headers.get("retry-after"))).toBeGreaterThan(0)

    const key = registrations[0]!.body.api_key
    const statuses = []
    for (let i = 0; i < 6; i++) {
      statuses.push((await vote(at(i), { entity_id: sample[10 + i]!.id! }, { authorization: `Bearer ${key}` })).status)
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429])
  })

  it("a revoked agent's votes leave the counters at once, on every process, and its key is refused", async () => {
    const target = sample[2]!.id!
    const before = await counters(at(0), target)
    const agent = (await register(at(0), "to-revoke", "198.51.100.200")).body
    expect(
      (
        await vote(
          at(1),
          { entity_id: target, direction: "down", reason: "Ignores robots.txt" },
          { authorization: `Bearer ${agent.api_key}` }
        )
      ).status
    ).toBe(201)
    expect((await countersReach(at(0), target, (t) => t.trust_down > before.trust_down)).trust_down).toBe(before.trust_down + 1)

    const revoked = await run(AGENTS_BIN, ["revoke", agent.agent_id], env)
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(revoked.stdout).toContain("1 vote no longer counts")
    for (const base of bases) {
      // A change made elsewhere (the CLI) reaches every API process within a second.
      expect(await countersReach(base, target, (t) => t.trust_down === before.trust_down)).toEqual(before)
      expect((await vote(base, { entity_id: target }, { authorization: `Bearer ${agent.api_key}` })).status).toBe(401)
    }
  })

  it("a signed request from a loopback key directory counts as its agent; a tampered body or an expired signature is refused", async () => {
    const key = makeAgentKey()
    const scope = Effect.runSync(Scope.make())
    const directory = await Effect.runPromise(Scope.provide(serveKeyDirectory([key]), scope))
    try {
      const target = sample[3]!.id!
      const before = await counters(at(0), target)
      const post = (base: string, body: string, headers: Record<string, string>) =>
        json<{ counted_as: string; status: string }>(`${base}/vote`, { method: "POST", headers, body })
      const body = JSON.stringify({ entity_id: target })
      const signed = (base: string, payload: string, extra = {}) =>
        signedHeaders({ key, directory: directory.origin, url: `${base}/vote`, body: payload, ...extra })

      const first = await post(at(0), body, signed(at(0), body))
      expect([first.status, first.body.counted_as]).toEqual([201, "agent"])
      const again = await post(at(1), body, signed(at(1), body))
      expect([again.status, again.body.status]).toEqual([200, "unchanged"])

      const down = JSON.stringify({ entity_id: target, direction: "down" })
      expect((await post(at(1), down, signed(at(1), body))).status).toBe(401)
      const expired = signed(at(1), down, { createdAt: Math.floor(Date.now() / 1000) - 3600, lifetime: 60 })
      expect((await post(at(1), down, expired)).status).toBe(401)
      expect((await countersReach(at(0), target, (t) => t.trust_up > before.trust_up)).trust_up - before.trust_up).toBe(1)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})
