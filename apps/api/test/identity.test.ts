/**
 * Voter identity over real HTTP (docs/api.md, "Voter identity"): a stated
 * voter_id is no identity, a spoofed X-Forwarded-For prefix is no new address,
 * an API key or a Web Bot Auth signature makes the voter an agent, and a proof
 * that fails is a 401 that changes nothing. On every store variant in process;
 * apps/api/test/processes.test.ts runs two API processes on one database.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Layer } from "effect"
import { type AgentId, AgentRegistry, CatalogStore } from "@productdir/domain"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, memoryStores, serverLayer, storeVariants } from "./harness.ts"
import { bodyOf, postJson, type ProblemBody, request } from "./http.ts"
import { makeAgentKey, serveKeyDirectory, signedHeaders } from "./signedAgent.ts"

const sample = sampleCatalog()
const product = (i: number) => sample[i]!

interface Credentials {
  readonly agent_id: string
  readonly api_key: string
}

const register = (base: string, name: string, headers: Record<string, string> = {}) =>
  Effect.map(postJson(`${base}/agents`, { name }, headers), (reply) => {
    expect(reply.status).toBe(201)
    return reply.json as Credentials
  })

const countersOf = (id: string) =>
  Effect.map(
    CatalogStore.use((c) => c.find(id)),
    (p) => p.counters
  )

const variants = [{ name: "memory", stores: memoryStores }, ...storeVariants()]

reportLeftOut("voter identity", storesLeftOut())
for (const variant of variants) {
  describe(`voter identity (${variant.name})`, () => {
    const stores = variant.stores()
    const settings = {
      votesPerVoter: 0,
      votesPerAddress: 0,
      registrationsPerNetwork: {},
      trustProxy: 1,
      signedAgentsHttpHosts: ["127.0.0.1"]
    }
    layer(Layer.provideMerge(serverLayer(stores, settings), stores), { excludeTestServices: true, timeout: "120 seconds" })((it) => {
      it.effect("registration returns a key once, kept only as a hash, never cached", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const reply = yield* postJson(`${base}/agents`, { name: " research-bot ", contact: "mailto:ops@example.com" })
          expect(reply.status).toBe(201)
          expect(reply.headers.get("cache-control")).toBe("no-store")
          const body = reply.json as Credentials & { name: string; contact: string; usage: string }
          expect(body.name).toBe("research-bot")
          expect(body.contact).toBe("mailto:ops@example.com")
          expect(body.api_key).toMatch(/^pdk_[A-Za-z0-9_-]{43}$/)
          expect(body.usage).toContain("Authorization: Bearer")
          const stored = yield* AgentRegistry.use((r) => r.find(body.agent_id as AgentId))
          expect(stored.keyHint).toBe(body.api_key.slice(0, 8))
          expect(JSON.stringify(stored)).not.toContain(body.api_key)
        })
      )

      it.effect("a registration with wrong fields is a 400 naming each, and registers nothing", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const before = (yield* AgentRegistry.use((r) => r.list({ limit: 1000 }))).length
          const reply = yield* postJson(`${base}/agents`, { name: "   ", contact: "x".repeat(201), role: "admin" })
          expect(reply.status).toBe(400)
          const problem = bodyOf<ProblemBody>(reply)
          // Every wrong field, each once or more (a contact can be too long and not an address at once).
          expect([...new Set(problem.errors?.map((e) => e.path.join(".")))].sort()).toEqual([
            "payload.contact",
            "payload.name",
            "payload.role"
          ])
          expect(JSON.stringify(problem)).not.toMatch(/Expected|never|RegExp/)
          expect((yield* AgentRegistry.use((r) => r.list({ limit: 1000 }))).length).toBe(before)
        })
      )

      it.effect("100 unproven votes from one address, rotating voter_id and a spoofed X-Forwarded-For prefix, move a product by one", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const target = product(3)
          const before = yield* countersOf(target.id)
          const replies = yield* Effect.forEach(
            Array.from({ length: 100 }, (_, i) => i),
            (i) =>
              postJson(
                `${base}/vote`,
                { entity_id: target.id, voter_id: `sock-puppet-${i}` },
                // The client writes whatever it likes on the left; the proxy appends the address it saw.
                { "x-forwarded-for": `10.0.${i}.1, 172.16.0.${i}, 203.0.113.99` }
              ),
            { concurrency: 10 }
          )
          expect(replies.filter((r) => r.status === 201)).toHaveLength(1)
          expect(replies.every((r) => (r.json as { counted_as: string }).counted_as === "address")).toBe(true)
          const after = yield* countersOf(target.id)
          expect(after.up - before.up).toBe(1)
        })
      )

      it.effect("an agent's vote counts for the agent, wherever it comes from", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const target = product(4)
          const before = yield* countersOf(target.id)
          const agents = yield* Effect.forEach([1, 2, 3], (i) => register(base, `counted-${i}`))
          // Three agents behind one address count three.
          const votes = yield* Effect.forEach(agents, (agent) =>
            postJson(
              `${base}/vote`,
              { entity_id: target.id },
              { authorization: `Bearer ${agent.api_key}`, "x-forwarded-for": "198.51.100.1" }
            )
          )
          expect(votes.map((v) => [v.status, (v.json as { counted_as: string }).counted_as])).toEqual([
            [201, "agent"],
            [201, "agent"],
            [201, "agent"]
          ])
          // One agent from another address is still the same voter: unchanged, then changed.
          const again = yield* postJson(
            `${base}/vote`,
            { entity_id: target.id },
            { authorization: `bearer ${agents[0]!.api_key}`, "x-forwarded-for": "198.51.100.2" }
          )
          expect([again.status, (again.json as { status: string }).status]).toEqual([200, "unchanged"])
          const after = yield* countersOf(target.id)
          expect(after.up - before.up).toBe(3)
        })
      )

      it.effect("a bad, unknown or malformed key is a 401 with a Bearer challenge, and counts nothing", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const target = product(5)
          const before = yield* countersOf(target.id)
          for (const authorization of [`Bearer pdk_${"A".repeat(43)}`, "Bearer not-a-key", "Basic dXNlcjpwYXNz", "Bearer"]) {
            const reply = yield* postJson(`${base}/vote`, { entity_id: target.id }, { authorization })
            expect(reply.status, authorization).toBe(401)
            expect(reply.headers.get("content-type")).toMatch(/^application\/problem\+json/)
            expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer realm="productdir"/)
            expect(bodyOf<ProblemBody>(reply).detail).toMatch(/key|Authorization/)
          }
          expect(yield* countersOf(target.id)).toEqual(before)
        })
      )

      it.effect("a revoked agent's votes leave the counters, and its key is refused", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const target = product(6)
          const before = yield* countersOf(target.id)
          const agent = yield* register(base, "soon-revoked")
          const headers = { authorization: `Bearer ${agent.api_key}` }
          expect(
            (yield* postJson(`${base}/vote`, { entity_id: target.id, direction: "down", reason: "Broken export" }, headers)).status
          ).toBe(201)
          expect((yield* countersOf(target.id)).down).toBe(before.down + 1)
          const problems = yield* request(`${base}/entities/${target.id}/problems`)
          expect(JSON.stringify(problems.json)).toContain("Broken export")

          yield* AgentRegistry.use((r) => r.revoke(agent.agent_id as AgentId))
          expect(yield* countersOf(target.id)).toEqual(before)
          const after = yield* request(`${base}/entities/${target.id}/problems`)
          expect(JSON.stringify(after.json)).not.toContain("Broken export")
          const refused = yield* postJson(`${base}/vote`, { entity_id: target.id }, headers)
          expect(refused.status).toBe(401)
          expect(bodyOf<ProblemBody>(refused).detail).toContain("revoked")
        })
      )

      it.effect("a signed agent is its key: another URL for its directory is the same agent, and its revocation holds there", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const key = makeAgentKey()
          const directory = yield* serveKeyDirectory([key], { anyPath: true })
          const vote = (entity: string, at: string) => {
            const body = JSON.stringify({ entity_id: entity, direction: "up" })
            const headers = signedHeaders({ key, directory: `${directory.origin}${at}`, url: `${base}/vote`, body })
            return request(`${base}/vote`, { method: "POST", headers, body })
          }
          expect((yield* vote(product(10).id, "/keys.json")).status).toBe(201)
          // The same key at URLs the directory also serves it from: the same agent, whose vote is unchanged.
          for (const at of ["/keys.json?", "/%6Beys.json", "/./keys.json"]) {
            const again = yield* vote(product(10).id, at)
            expect([at, again.status, (again.json as { status: string }).status]).toEqual([at, 200, "unchanged"])
          }
          const holders = (yield* AgentRegistry.use((r) => r.list({ limit: 1000 }))).filter((a) => a.keyId === key.kid)
          expect(holders).toHaveLength(1)
          yield* AgentRegistry.use((r) => r.revoke(holders[0]!.id))
          for (const at of ["/keys.json", "/keys.json?", "/%6Beys.json", "/other/keys.json"]) {
            const refused = yield* vote(product(11).id, at)
            expect([at, refused.status]).toEqual([at, 401])
            expect(bodyOf<ProblemBody>(refused).detail, at).toContain("revoked")
          }
          expect((yield* AgentRegistry.use((r) => r.list({ limit: 1000 }))).filter((a) => a.keyId === key.kid)).toHaveLength(1)
        }).pipe(Effect.scoped)
      )

      it.effect("over MCP, the key makes the vote the agent's; a bad key is a 401 before any MCP message", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const target = product(7)
          const agent = yield* register(base, "mcp-agent")
          const connect = (headers: Record<string, string>) =>
            Effect.acquireRelease(
              Effect.tryPromise({
                try: async () => {
                  const client = new Client({ name: "identity-test", version: "1.0.0" })
                  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }))
                  return client
                },
                catch: (error) => String(error)
              }),
              (client) => Effect.promise(() => client.close())
            )
          const client = yield* connect({ authorization: `Bearer ${agent.api_key}` })
          const result = (yield* Effect.promise(() => client.callTool({ name: "vote", arguments: { entity_id: target.id } }))) as {
            structuredContent?: { counted_as?: string; status?: string }
          }
          expect(result.structuredContent).toMatchObject({ counted_as: "agent", status: "recorded" })
          // The same agent over HTTP: the same voter.
          const http = yield* postJson(`${base}/vote`, { entity_id: target.id }, { authorization: `Bearer ${agent.api_key}` })
          expect((http.json as { status: string }).status).toBe("unchanged")

          const bad = yield* postJson(
            `${base}/mcp`,
            {
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } }
            },
            { authorization: `Bearer pdk_${"B".repeat(43)}`, accept: "application/json, text/event-stream" }
          )
          expect(bad.status).toBe(401)
          expect(bad.headers.get("www-authenticate")).toMatch(/^Bearer/)
          const refused = yield* Effect.flip(connect({ authorization: `Bearer pdk_${"C".repeat(43)}` }))
          expect(refused).toMatch(/401/)
        }).pipe(Effect.scoped)
      )

      it.effect("a request signed by a key its directory vouches for counts as that agent; tampering, expiry, replay are refused", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const key = makeAgentKey()
          const directory = yield* serveKeyDirectory([key])
          const target = product(8)
          const before = yield* countersOf(target.id)
          const send = (body: string, headers: Record<string, string>) => request(`${base}/vote`, { method: "POST", headers, body })
          const sign = (body: string, extra: Partial<Parameters<typeof signedHeaders>[0]> = {}) =>
            signedHeaders({ key, directory: directory.origin, url: `${base}/vote`, body, ...extra })

          const body = JSON.stringify({ entity_id: target.id, direction: "up" })
          const accepted = yield* send(body, sign(body))
          expect([accepted.status, (accepted.json as { counted_as: string }).counted_as]).toEqual([201, "agent"])
          const enrolled = (yield* AgentRegistry.use((r) => r.list({ limit: 1000 }))).filter((a) => a.keyId === key.kid)
          expect(enrolled.map((a) => [a.kind, a.keyDirectory])).toEqual([
            ["signed", `${directory.origin}/.well-known/http-message-signatures-directory`]
          ])
          // Signed again (new nonce): the same agent, unchanged; the directory was fetched once.
          const again = yield* send(body, sign(body))
          expect((again.json as { status: string }).status).toBe("unchanged")
          expect(directory.fetches()).toBe(1)

          const down = JSON.stringify({ entity_id: target.id, direction: "down" })
          // Each refusal, and the words that say why.
          const refusals: Record<string, { body: string; headers: Record<string, string>; says: RegExp }> = {
            "a tampered body": { body: down, headers: sign(body), says: /Content-Digest/ },
            "an expired signature": {
              body: down,
              headers: sign(down, { createdAt: Math.floor(Date.now() / 1000) - 600, lifetime: 60 }),
              says: /expired/
            },
            "a signature made for another host": {
              body: down,
              headers: sign(down, { authority: "elsewhere.example" }),
              says: /verification failed/
            },
            "a key the directory does not hold": { body: down, headers: sign(down, { key: makeAgentKey() }), says: /has no key/ },
            "a window longer than an hour": {
              body: down,
              headers: sign(down, { lifetime: 48 * 3600 }),
              says: /more than 60 minutes apart/
            },
            "a directory over plain HTTP on a host not allowed": {
              body: down,
              headers: sign(down, { directory: directory.origin.replace("127.0.0.1", "localhost") }),
              says: /HTTPS only/
            },
            "a directory at a private address": {
              body: down,
              headers: sign(down, { directory: "https://10.0.0.1" }),
              says: /private address/
            },
            "a directory whose name resolves to loopback": {
              body: down,
              headers: sign(down, { directory: "https://localhost:9" }),
              says: /resolves only to private addresses/
            },
            "a directory named by an IPv6 loopback": {
              body: down,
              headers: sign(down, { directory: "https://[::1]:9" }),
              says: /private address/
            },
            "a Signature-Agent with bytes outside ASCII": {
              body: down,
              headers: { ...sign(down), "signature-agent": 'sig1="https://ex\u00e9mple.test"' },
              says: /Signature-Agent/
            },
            "an unreadable Signature-Input": {
              body: down,
              headers: { ...sign(down), "signature-input": "sig1=((((" },
              says: /structured dictionary/
            },
            // Each of these was counted before as the address's vote, or (beside a key) as the key's, unchecked.
            "a signature without a nonce (anyone who saw it could send it again within the hour)": {
              body: down,
              headers: sign(down, { nonce: null }),
              says: /carries no nonce/
            },
            "a Signature without its Signature-Input": {
              body: down,
              headers: { "content-type": "application/json", signature: "sig1=:AAAA:" },
              says: /Signature header comes without Signature-Input/
            },
            "a Signature-Agent alone": {
              body: down,
              headers: { "content-type": "application/json", "signature-agent": `sig1="${directory.origin}"` },
              says: /Signature-Agent header comes without Signature-Input/
            },
            "an API key beside a signature": {
              body: down,
              headers: { ...sign(down), authorization: `Bearer pdk_${"D".repeat(43)}` },
              says: /both an API key/
            }
          }
          for (const [name, attempt] of Object.entries(refusals)) {
            const reply = yield* send(attempt.body, attempt.headers)
            expect(reply.status, name).toBe(401)
            expect(reply.headers.get("accept-signature"), name).toContain("web-bot-auth")
            expect(bodyOf<ProblemBody>(reply).detail, name).toMatch(attempt.says)
          }
          // A replay of an accepted request (same nonce) is refused too.
          const replayed = sign(down, { nonce: "once-only" })
          expect((yield* send(down, replayed)).status).toBe(200)
          expect((yield* send(down, replayed)).status).toBe(401)
          // And in the last second the verifier still accepts a signature (it reads the time in whole seconds,
          // up to expires + 5 s of skew): its nonce is still kept, so the replay there is refused as well.
          const late = JSON.stringify({ entity_id: product(9).id, direction: "up" })
          let first = 0
          let second = 0
          for (let attempt = 0; attempt < 5 && first !== 201; attempt++) {
            // At the start of a second, so that both requests fall within it.
            yield* Effect.sleep(`${1_000 - (Date.now() % 1_000) + 20} millis`)
            const expires = Math.floor(Date.now() / 1000) - 5
            const headers = sign(late, { createdAt: expires - 10, lifetime: 10, nonce: `late-${attempt}` })
            first = (yield* send(late, headers)).status
            second = (yield* send(late, headers)).status
          }
          expect([first, second]).toEqual([201, 401])
          // Up, then down by the same agent: one vote, moved.
          const after = yield* countersOf(target.id)
          expect([after.up - before.up, after.down - before.down]).toEqual([0, 1])
        }).pipe(Effect.scoped)
      )

      it.effect("a signature refused on its own terms is refused before its key directory is fetched, in words that say why", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const key = makeAgentKey()
          const directory = yield* serveKeyDirectory([key])
          const body = JSON.stringify({ entity_id: product(10).id, direction: "up" })
          const sign = (extra: Partial<Parameters<typeof signedHeaders>[0]> = {}) =>
            signedHeaders({ key, directory: directory.origin, url: `${base}/vote`, body, ...extra })
          const now = Math.floor(Date.now() / 1000)
          const good = sign()
          // Each was refused only after a fetch of the directory, and blamed on it when that fetch failed.
          const refusals: Record<string, { headers: Record<string, string>; says: RegExp }> = {
            "an expired signature": { headers: sign({ createdAt: now - 600, lifetime: 60 }), says: /expired/ },
            "a signature created an hour from now": { headers: sign({ createdAt: now + 3600 }), says: /created in the future/ },
            "a Signature under another label than its Signature-Input": {
              headers: { ...good, signature: good.signature!.replace(/^sig1=/, "sig2=") },
              says: /label/
            },
            "a Signature that is not a byte sequence": { headers: { ...good, signature: 'sig1="text"' }, says: /byte sequences/ },
            "a signature that does not cover @authority": {
              headers: { ...good, "signature-input": good["signature-input"]!.replace('"@authority" ', "") },
              says: /"@authority" is absent/
            }
          }
          for (const [name, attempt] of Object.entries(refusals)) {
            const reply = yield* request(`${base}/vote`, { method: "POST", headers: attempt.headers, body })
            expect(reply.status, name).toBe(401)
            expect(bodyOf<ProblemBody>(reply).detail, name).toMatch(attempt.says)
          }
          expect(directory.fetches()).toBe(0)
          // A good one is judged as always: its directory fetched, its vote counted.
          const accepted = yield* request(`${base}/vote`, { method: "POST", headers: good, body })
          expect(accepted.status).toBe(201)
          expect(directory.fetches()).toBe(1)
        }).pipe(Effect.scoped)
      )
    })
  })
}
