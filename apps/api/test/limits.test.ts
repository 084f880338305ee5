/** Rate limits: per voter (an agent, or an address), per client address, per registration; shared by HTTP and MCP. */
import { describe, expect, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Layer } from "effect"
import { layerWithState, MemoryState } from "@productdir/store-memory/testing"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, serverLayer } from "./harness.ts"
import { bodyOf, postJson, type ProblemBody, request } from "./http.ts"
import { makeAgentKey, serveKeyDirectory, signedHeaders } from "./signedAgent.ts"
import { DEFAULT_ANONYMOUS_VOTES, DEFAULT_REGISTRATIONS, DEFAULT_REGISTRATIONS_PER_ADDRESS } from "@productdir/usecases"

const [a, b, c] = sampleCatalog()

const register = (base: string, name: string, from: Record<string, string>) =>
  Effect.map(postJson(`${base}/agents`, { name }, from), (reply) => (reply.json as { api_key: string }).api_key)

describe("rate limits", () => {
  // One memory store, built once (layers are memoised by reference): the server's, and direct access to it.
  const stores = layerWithState
  const server = Layer.merge(
    serverLayer(stores, {
      votesPerVoter: 3,
      votesPerAddress: 5,
      registrationsPerNetwork: { "v6/64": 3, "v4/32": 3 },
      trustProxy: 1,
      signedAgentsHttpHosts: ["127.0.0.1"]
    }),
    stores
  )
  layer(server, { excludeTestServices: true })((it) => {
    it.effect("the fourth vote of an agent in a minute is 429 with Retry-After and RateLimit headers, and changes nothing", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const key = yield* register(base, "busy-agent", { "x-forwarded-for": "203.0.113.7" })
        const asAgent = { authorization: `Bearer ${key}`, "x-forwarded-for": "203.0.113.70" }
        const ok = yield* Effect.forEach([a, b, c], (p) => postJson(`${base}/vote`, { entity_id: p!.id }, asAgent))
        expect(ok.map((r) => r.status)).toEqual([201, 201, 201])
        expect(ok.map((r) => r.headers.get("ratelimit-remaining"))).toEqual(["2", "1", "0"])
        expect(ok[0]!.headers.get("ratelimit-limit")).toBe("3")
        // From another address: the agent's own limit still applies.
        const limited = yield* postJson(
          `${base}/vote`,
          { entity_id: a!.id, direction: "down" },
          { ...asAgent, "x-forwarded-for": "203.0.113.71" }
        )
        expect(limited.status).toBe(429)
        expect(limited.headers.get("content-type")).toMatch(/^application\/problem\+json/)
        const retryAfter = Number(limited.headers.get("retry-after"))
        expect(retryAfter).toBeGreaterThanOrEqual(1)
        expect(retryAfter).toBeLessThanOrEqual(20)
        expect(limited.headers.get("ratelimit-remaining")).toBe("0")
        // RateLimit-Reset means one thing on every answer: seconds until the bucket is full again (here all
        // three tokens, about a minute), not until the next one (Retry-After).
        const reset = Number(limited.headers.get("ratelimit-reset"))
        expect(reset).toBeGreaterThan(retryAfter)
        expect(reset).toBeLessThanOrEqual(60)
        expect(Number(ok[2]!.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(reset)
        expect(bodyOf<ProblemBody>(limited)).toMatchObject({ status: 429, title: "Too Many Requests" })
        expect(bodyOf<ProblemBody>(limited).detail).toContain("3 per minute")
        // The limited vote changed nothing: the agent's vote on a is still up.
        const state = yield* MemoryState
        expect([...(state.votes.get(a!.id)?.values() ?? [])].map((v) => v.direction)).toEqual(["up"])
      })
    )

    it.effect("one address is limited whoever votes from it; another address is not", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const keys = yield* Effect.forEach([1, 2], (i) => register(base, `fleet-${i}`, { "x-forwarded-for": `198.51.100.${20 + i}` }))
        const from = { "x-forwarded-for": "10.9.9.9, 198.51.100.9" }
        const statuses = yield* Effect.forEach([0, 1, 2, 3, 4, 5], (i) =>
          Effect.map(
            postJson(`${base}/vote`, { entity_id: [a, b, c][i % 3]!.id }, { ...from, authorization: `Bearer ${keys[i % 2]}` }),
            (r) => r.status
          )
        )
        expect(statuses.slice(0, 5).every((s) => s === 201 || s === 200)).toBe(true)
        expect(statuses[5]).toBe(429)
        const elsewhere = yield* postJson(
          `${base}/vote`,
          { entity_id: c!.id },
          { authorization: `Bearer ${keys[1]}`, "x-forwarded-for": "198.51.100.10" }
        )
        expect([200, 201]).toContain(elsewhere.status)
      })
    )

    it.effect("registrations are limited per address and day", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const from = { "x-forwarded-for": "192.0.2.200" }
        const replies = yield* Effect.forEach([1, 2, 3, 4], (i) => postJson(`${base}/agents`, { name: `crowd-${i}` }, from))
        expect(replies.map((r) => r.status)).toEqual([201, 201, 201, 429])
        const limited = replies[3]!
        expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(3600)
        expect(bodyOf<ProblemBody>(limited).detail).toContain("3 per day")
        expect(replies[0]!.headers.get("ratelimit-limit")).toBe("3")
        const other = yield* postJson(`${base}/agents`, { name: "neighbour" }, { "x-forwarded-for": "192.0.2.201" })
        expect(other.status).toBe(201)
      })
    )

    it.effect("a signed agent's first vote is a new identity: it draws on the same daily budget as registrations", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const from = { "x-forwarded-for": "192.0.2.210" }
        const keys = [makeAgentKey(), makeAgentKey()]
        const directory = yield* serveKeyDirectory(keys)
        yield* register(base, "first", from)
        yield* register(base, "second", from)
        const body = JSON.stringify({ entity_id: c!.id })
        const signed = (i: number) =>
          request(`${base}/vote`, {
            method: "POST",
            headers: { ...signedHeaders({ key: keys[i]!, directory: directory.origin, url: `${base}/vote`, body }), ...from },
            body
          })
        // The third new identity from this network today is allowed; the fourth is not.
        const third = yield* signed(0)
        expect(third.status, third.text).toBe(201)
        const fourth = yield* signed(1)
        expect(fourth.status).toBe(429)
        expect(bodyOf<ProblemBody>(fourth).detail).toContain("a signed agent's first vote counts as a registration")
        // An agent already enrolled is not new: its votes go on.
        const again = yield* signed(0)
        expect([200, 201]).toContain(again.status)
      }).pipe(Effect.scoped)
    )

    it.effect("votes over HTTP and over MCP draw on the same limit", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const key = yield* register(base, "two-doors", { "x-forwarded-for": "192.0.2.90" })
        const headers = { authorization: `Bearer ${key}` }
        const http = yield* Effect.forEach([a, b, c], (p) => postJson(`${base}/vote`, { entity_id: p!.id }, headers))
        expect(http.map((r) => r.status)).toEqual([201, 201, 201])
        const client = yield* Effect.acquireRelease(
          Effect.promise(async () => {
            const mcp = new Client({ name: "limits-test", version: "1.0.0" })
            await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }))
            return mcp
          }),
          (mcp) => Effect.promise(() => mcp.close())
        )
        const result = yield* Effect.promise(
          () =>
            client.callTool({ name: "vote", arguments: { entity_id: a!.id, direction: "down" } }) as Promise<{
              isError?: boolean
              content: Array<{ text?: string }>
            }>
        )
        expect(result.isError).toBe(true)
        expect(result.content[0]?.text).toContain("rate limit")
      }).pipe(Effect.scoped)
    )

    it.effect("anonymous voters are keyed by a hash of their network, never the address itself", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const one = yield* postJson(`${base}/vote`, { entity_id: b!.id }, { "x-forwarded-for": "192.0.2.44" })
        const again = yield* postJson(`${base}/vote`, { entity_id: b!.id }, { "x-forwarded-for": "192.0.2.44" })
        const other = yield* postJson(`${base}/vote`, { entity_id: b!.id }, { "x-forwarded-for": "192.0.2.45" })
        expect([one.status, again.status, other.status]).toEqual([201, 200, 201])
        const state = yield* MemoryState
        const voters = [...(state.votes.get(b!.id)?.keys() ?? [])]
        const anonymous = voters.filter((v) => v.startsWith("ip:"))
        expect(anonymous.length).toBeGreaterThanOrEqual(2)
        expect(voters.join(" ")).not.toContain("192.0.2")
        expect(anonymous.every((v) => /^ip:[0-9a-f]{32}$/.test(v))).toBe(true)
      })
    )
  })
})

describe("a developer on the server's own machine", () => {
  // The defaults a new user starts with, on loopback, no proxy declared.
  const server = serverLayer(layerWithState, {
    registrationsPerNetwork: {
      ...DEFAULT_REGISTRATIONS,
      "v4/32": DEFAULT_REGISTRATIONS_PER_ADDRESS,
      "v6/64": DEFAULT_REGISTRATIONS_PER_ADDRESS
    },
    anonymousVotesPerNetwork: DEFAULT_ANONYMOUS_VOTES
  })
  layer(server, { excludeTestServices: true })((it) => {
    it.effect("registers more than a day's budget and changes an anonymous vote back and forth; through a proxy the budgets apply", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const registered = yield* Effect.forEach(
          Array.from({ length: DEFAULT_REGISTRATIONS_PER_ADDRESS + 2 }, (_, i) => i),
          (i) => postJson(`${base}/agents`, { name: `dev-agent-${i}` })
        )
        expect(registered.map((r) => r.status)).toEqual(Array(DEFAULT_REGISTRATIONS_PER_ADDRESS + 2).fill(201))
        const votes = yield* Effect.forEach(["up", "down", "up", "down"], (direction) =>
          postJson(`${base}/vote`, { entity_id: c!.id, direction })
        )
        expect(votes.map((r) => r.status)).toEqual([201, 200, 200, 200])
        // A request that came through a proxy (it says so) is not the developer's: the budgets hold.
        const proxied = yield* Effect.forEach(
          Array.from({ length: DEFAULT_REGISTRATIONS_PER_ADDRESS + 1 }, (_, i) => i),
          (i) => postJson(`${base}/agents`, { name: `proxied-${i}` }, { "x-forwarded-for": "203.0.113.99" })
        )
        expect(proxied.at(-1)!.status).toBe(429)
      })
    )
  })
})
