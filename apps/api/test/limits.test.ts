import { describe, expect, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Layer } from "effect"
import { MemoryStore } from "@productdir/domain"
import { sampleCatalog } from "@productdir/testkit/sample"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { bodyOf, postJson, type ProblemBody } from "./http.ts"

const [a, b, c] = sampleCatalog()

describe("vote rate limit and voter identity", () => {
  // One memory store, built once (layers are memoised by reference): the server's, and Direct access to it.
  const stores = memoryStores()
  const server = Layer.merge(serverLayer(stores, { votesPerVoter: 3, votesPerAddress: 5, trustProxy: true }), stores)
  layer(server, { excludeTestServices: true })((it) => {
    it.effect("the fourth vote of a voter in a minute is 429 with Retry-After and RateLimit headers", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const from = { "x-forwarded-for": "203.0.113.7" }
        const ok = yield* Effect.forEach([a, b, c], (p) => postJson(`${base}/vote`, { entity_id: p!.id, voter_id: "busy-agent" }, from))
        expect(ok.map((r) => r.status)).toEqual([201, 201, 201])
        expect(ok.map((r) => r.headers.get("ratelimit-remaining"))).toEqual(["2", "1", "0"])
        expect(ok[0]!.headers.get("ratelimit-limit")).toBe("3")
        const limited = yield* postJson(`${base}/vote`, { entity_id: a!.id, voter_id: "busy-agent", direction: "down" }, from)
        expect(limited.status).toBe(429)
        expect(limited.headers.get("content-type")).toMatch(/^application\/problem\+json/)
        const retryAfter = Number(limited.headers.get("retry-after"))
        expect(retryAfter).toBeGreaterThanOrEqual(1)
        expect(retryAfter).toBeLessThanOrEqual(20)
        expect(limited.headers.get("ratelimit-remaining")).toBe("0")
        expect(bodyOf<ProblemBody>(limited)).toMatchObject({ status: 429, title: "Too Many Requests" })
        // The limited vote changed nothing.
        const state = yield* MemoryStore.Direct
        expect(state.votes.get(a!.id)?.size).toBe(1)
      }))

    it.effect("one address is limited across voter ids; another address is not", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const from = { "x-forwarded-for": "198.51.100.9, 10.0.0.1" }
        const statuses = yield* Effect.forEach([1, 2, 3, 4, 5, 6], (i) =>
          Effect.map(postJson(`${base}/vote`, { entity_id: a!.id, voter_id: `fleet-${i}` }, from), (r) => r.status))
        expect(statuses).toEqual([201, 201, 201, 201, 201, 429])
        const elsewhere = yield* postJson(`${base}/vote`, { entity_id: a!.id, voter_id: "fleet-6" }, { "x-forwarded-for": "198.51.100.10" })
        expect(elsewhere.status).toBe(201)
      }))

    it.effect("votes over HTTP and over MCP draw on the same rate limit", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const http = yield* Effect.forEach([a, b, c], (p) => postJson(`${base}/vote`, { entity_id: p!.id, voter_id: "two-doors" }))
        expect(http.map((r) => r.status)).toEqual([201, 201, 201])
        const client = yield* Effect.acquireRelease(
          Effect.promise(async () => {
            const mcp = new Client({ name: "limits-test", version: "1.0.0" })
            await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
            return mcp
          }),
          (mcp) => Effect.promise(() => mcp.close())
        )
        const result = yield* Effect.promise(() =>
          client.callTool({ name: "vote", arguments: { entity_id: a!.id, voter_id: "two-doors", direction: "down" } }) as Promise<{ isError?: boolean; content: Array<{ text?: string }> }>
        )
        expect(result.isError).toBe(true)
        expect(result.content[0]?.text).toContain("rate limit")
      }).pipe(Effect.scoped))

    it.effect("anonymous voters are keyed by a hash of their address, never the address itself", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const one = yield* postJson(`${base}/vote`, { entity_id: b!.id }, { "x-forwarded-for": "192.0.2.44" })
        const again = yield* postJson(`${base}/vote`, { entity_id: b!.id }, { "x-forwarded-for": "192.0.2.44" })
        const other = yield* postJson(`${base}/vote`, { entity_id: b!.id }, { "x-forwarded-for": "192.0.2.45" })
        expect([one.status, again.status, other.status]).toEqual([201, 200, 201])
        const state = yield* MemoryStore.Direct
        const voters = [...(state.votes.get(b!.id)?.keys() ?? [])]
        const anonymous = voters.filter((v) => v.startsWith("ip:"))
        expect(anonymous).toHaveLength(2)
        expect(voters.join(" ")).not.toContain("192.0.2")
        expect(anonymous.every((v) => /^ip:[0-9a-f]{32}$/.test(v))).toBe(true)
      }))
  })
})
