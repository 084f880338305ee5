/**
 * A2A 0.3 as the clients that have not moved to 1.0 use it: the card fetched
 * without A2A-Version (as 0.3 clients fetch it) is read with the official
 * SDK's parseLegacyAgentCard and gives the SDK's 0.3 transports
 * (LegacyJsonRpcTransport, LegacyRestTransport), which ask each of the four
 * skills over real HTTP; a raw `message/send` without any A2A header, as the
 * issue writes it, answers; a bad key is refused as POST /vote refuses it;
 * 0.3's other methods are refused as 0.3 says; the 0.3 card is signed over
 * itself and kept apart from the 1.0 card by Vary.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { type Message, SendMessageRequest } from "@a2a-js/sdk"
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client"
import { LegacyJsonRpcTransport, LegacyRestTransport, parseLegacyAgentCard } from "@a2a-js/sdk/compat/v0_3/client"
import { Effect, Option, Redacted } from "effect"
import { createPublicKey, generateKeyPairSync, type JsonWebKey, verify } from "node:crypto"
import { baseUrl, memoryStores, registeredAgent, serverLayer, storeVariants } from "./harness.ts"
import { bodyOf, postJson, request } from "./http.ts"

const signingJwk = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" })

/** What the SDK's 0.3 transports share: sending a message. */
type Legacy = LegacyJsonRpcTransport | LegacyRestTransport

const transportsOf = (base: string) => ({
  JSONRPC: new LegacyJsonRpcTransport({ endpoint: `${base}/a2a/jsonrpc` }),
  "HTTP+JSON": new LegacyRestTransport({ endpoint: `${base}/a2a/rest` })
})

let sent = 0
const message = (content: string | Record<string, unknown>) =>
  SendMessageRequest.fromJSON({
    message: {
      messageId: `legacy-${++sent}`,
      role: "ROLE_USER",
      parts: [typeof content === "string" ? { text: content } : { data: content }]
    }
  })

/** A message through a 0.3 transport as a 0.3 client sends it: no A2A-Version header. */
const ask = (transport: Legacy, content: string | Record<string, unknown>, headers: Record<string, string> = {}) =>
  Effect.promise(() => transport.sendMessage(message(content), { serviceParameters: headers })).pipe(Effect.map((r) => r as Message))

const refusal = (transport: Legacy, content: string | Record<string, unknown>, headers: Record<string, string> = {}) =>
  Effect.flip(
    Effect.tryPromise({
      try: () => transport.sendMessage(message(content), { serviceParameters: headers }),
      catch: (error) => error as Error
    })
  )

const textOf = (m: Message) => m.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])).join("\n")
const dataOf = <T>(m: Message): T => m.parts.find((p) => p.content?.$case === "data")!.content!.value as T

/** RFC 8785 for a card (strings, booleans, arrays, objects): keys sorted, strings as JSON.stringify writes them. Not the signer's library. */
const jcs = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(jcs).join(",")}]`
    : typeof value === "object" && value !== null
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${jcs((value as Record<string, unknown>)[k])}`)
          .join(",")}}`
      : JSON.stringify(value)

const rpc = (base: string, body: unknown, headers: Record<string, string> = {}) => postJson(`${base}/a2a/jsonrpc`, body, headers)
const send03 = (params: unknown, method = "message/send") => ({ jsonrpc: "2.0", id: "r-1", method, params })
const codeOf = (reply: { json: unknown }) => (reply.json as { error?: { code: number } }).error?.code

interface Card03 {
  readonly url: string
  readonly preferredTransport: string
  readonly protocolVersion: string
  readonly additionalInterfaces: ReadonlyArray<{ url: string; transport: string }>
  readonly supportedInterfaces: ReadonlyArray<{ url: string; protocolBinding: string; protocolVersion: string }>
  readonly securitySchemes: Record<string, unknown>
  readonly supportsAuthenticatedExtendedCard: boolean
  readonly capabilities: Record<string, boolean>
  readonly skills: ReadonlyArray<{ id: string }>
  readonly signatures: ReadonlyArray<{ protected: string; signature: string }>
}

const variants = [{ name: "memory", stores: memoryStores }, ...storeVariants()]

reportLeftOut("A2A 0.3 with the official SDK's compat layer", storesLeftOut())
for (const variant of variants) {
  describe(`A2A 0.3 with the official SDK's compat layer (${variant.name})`, () => {
    const settings = { a2aSigningKey: Option.some(Redacted.make(JSON.stringify(signingJwk))) }
    layer(serverLayer(variant.stores(), settings), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect(
        "the card without A2A-Version is 0.3's: parseLegacyAgentCard gives both 0.3 transports; signed over itself; Vary keeps it from 1.0's",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const served = yield* request(`${base}/.well-known/agent-card.json`)
            expect(served.status).toBe(200)
            expect(served.headers.get("vary")).toMatch(/A2A-Version/)
            const card = bodyOf<Card03>(served)
            expect(card).toMatchObject({
              url: `${base}/a2a/jsonrpc`,
              preferredTransport: "JSONRPC",
              protocolVersion: "0.3",
              supportsAuthenticatedExtendedCard: false,
              capabilities: { streaming: false, pushNotifications: false }
            })
            expect(card.additionalInterfaces).toEqual([
              { url: `${base}/a2a/jsonrpc`, transport: "JSONRPC" },
              { url: `${base}/a2a/rest`, transport: "HTTP+JSON" }
            ])
            expect(card.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "Bearer" })
            expect(card.skills.map((s) => s.id)).toEqual(["search", "read-product", "read-problems", "vote"])
            // The 1.0 interfaces stay listed beside 0.3's.
            expect(card.supportedInterfaces.filter((i) => i.protocolVersion === "1.0")).toHaveLength(2)

            // A 0.3 client reads it: the SDK's parser, then its factories with the compat layer on, pick the 0.3 transports.
            const parsed = parseLegacyAgentCard(card)
            expect(parsed.supportedInterfaces.every((i) => i.protocolVersion === "0.3")).toBe(true)
            const factory = (preferred: "JSONRPC" | "HTTP+JSON") =>
              new ClientFactory(
                ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
                  transports: [
                    new JsonRpcTransportFactory({ legacyCompat: { enabled: true } }),
                    new RestTransportFactory({ legacyCompat: { enabled: true } })
                  ],
                  preferredTransports: [preferred]
                })
              )
            for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
              const client = yield* Effect.promise(() => factory(binding).createFromAgentCard(parsed))
              expect(client.transport.protocolName).toBe(binding)
              expect(client.transport.protocolVersion).toBe("0.3")
              // (The factory builds the 0.3 class of its own bundle: protocolVersion is how it says which.)
              // Through the SDK's client (which sends A2A-Version: 0.3), a message is answered.
              const answer = (yield* Effect.promise(() => client.sendMessage(message("find okonomi")))) as Message
              expect(dataOf<{ items: Array<{ slug: string }> }>(answer).items[0]!.slug).toBe("okonomi-books")
            }

            // Signed: JWS over the card as served less its signatures (RFC 8785), with the key the JWKS publishes.
            const [signature] = card.signatures
            const header = JSON.parse(Buffer.from(signature!.protected, "base64url").toString()) as { kid: string; jku: string }
            const jwks = bodyOf<{ keys: Array<JsonWebKey & { kid: string }> }>(yield* request(header.jku))
            const key = createPublicKey({ key: jwks.keys.find((k) => k.kid === header.kid)!, format: "jwk" })
            const verifies = (c: Card03) => {
              const { signatures: _, ...unsigned } = c
              return verify(
                "sha256",
                Buffer.from(`${signature!.protected}.${Buffer.from(jcs(unsigned)).toString("base64url")}`),
                { key, dsaEncoding: "ieee-p1363" },
                Buffer.from(signature!.signature, "base64url")
              )
            }
            expect(verifies(card)).toBe(true)
            expect(verifies({ ...card, url: "https://attacker.example/a2a" })).toBe(false)

            // A2A-Version: 1.0 gets the 1.0 card, another representation (its own ETag), without 0.3's fields.
            const v1 = yield* request(`${base}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } })
            expect(v1.headers.get("vary")).toMatch(/A2A-Version/)
            expect(v1.headers.get("etag")).not.toBe(served.headers.get("etag"))
            expect(bodyOf<Record<string, unknown>>(v1)).not.toHaveProperty("url")
            const revalidated = yield* request(`${base}/.well-known/agent-card.json`, {
              headers: { "if-none-match": served.headers.get("etag")! }
            })
            expect(revalidated.status).toBe(304)
          })
      )

      for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
        it.effect(`${binding} 0.3: search, a product's view and its problems, through the SDK's legacy transport`, () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const transport = transportsOf(base)[binding]
            const found = yield* ask(transport, "find okonomi")
            expect(found.role).toBe(2) // ROLE_AGENT, read back from 0.3's "agent"
            expect(found.metadata).toEqual({ skill: "search" })
            const page = dataOf<{
              items: Array<{ id: string; name: string; trust: { trust_score: number }; links: { agent_view: string } }>
            }>(found)
            expect(page.items[0]).toMatchObject({ name: "Økonomi Books" })
            expect(page.items[0]!.id).toMatch(/^[0-9a-f-]{36}$/)
            expect(page.items[0]!.links.agent_view).toBe(`${base}/entities/okonomi-books?format=agent`)
            expect(textOf(found)).toMatch(/Økonomi Books \(trust: (no votes yet|\d+\/100 from \d+ votes?)/)

            const view = yield* ask(transport, "tell me about okonomi-books")
            expect(view.metadata).toEqual({ skill: "read-product" })
            expect(dataOf<{ name: string; links: { vote: { href: string } } }>(view)).toMatchObject({
              name: "Økonomi Books",
              links: { vote: { href: `${base}/vote` } }
            })

            const problems = yield* ask(transport, { skill: "read-problems", entity_id: "okonomi-books", limit: 1 })
            expect(problems.metadata).toEqual({ skill: "read-problems" })
            expect(dataOf<{ entity: { slug: string }; problems: Array<unknown> }>(problems).entity.slug).toBe("okonomi-books")
          })
        )

        it.effect(`${binding} 0.3: a vote counts for the key's agent like POST /vote; a bad key is refused as POST /vote refuses it`, () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const transport = transportsOf(base)[binding]
            const agent = yield* registeredAgent(`a2a-legacy-voter-${binding}`)
            const upOf = Effect.map(
              request(`${base}/entities/okonomi-books?format=agent`),
              (r) => bodyOf<{ trust: { trust_up: number } }>(r).trust.trust_up
            )
            const before = yield* upOf
            const voted = yield* ask(transport, "vote up okonomi-books", { Authorization: `Bearer ${agent.apiKey}` })
            expect(voted.metadata).toEqual({ skill: "vote" })
            expect(dataOf<{ status: string; counted_as: string }>(voted)).toMatchObject({ status: "recorded", counted_as: "agent" })
            expect(yield* upOf).toBe(before + 1)
            // The same agent through POST /vote: the same vote, unchanged.
            const again = yield* postJson(`${base}/vote`, { entity_id: "okonomi-books", direction: "up" }, agent.authorization)
            expect(bodyOf<{ status: string }>(again).status).toBe("unchanged")

            const bad = "Bearer pd_not-a-real-key"
            const viaHttp = yield* postJson(`${base}/vote`, { entity_id: "okonomi-books", direction: "up" }, { authorization: bad })
            expect(viaHttp.status).toBe(401)
            const refused = yield* refusal(transport, "vote up okonomi-books", { Authorization: bad })
            expect(refused.message).toContain(bodyOf<{ detail: string }>(viaHttp).detail)
            expect(yield* upOf).toBe(before + 1)
          })
        )
      }

      it.effect("a raw message/send without any A2A header, as the issue writes it, answers a search with a data part", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const reply = yield* rpc(
            base,
            send03({
              message: { kind: "message", messageId: "raw-03", role: "user", parts: [{ kind: "text", text: "invoicing for freelancers" }] }
            })
          )
          expect(reply.status).toBe(200)
          const result = bodyOf<{
            id: string
            result: { kind: string; role: string; parts: Array<{ kind: string; data?: { items: Array<{ name: string }> } }> }
          }>(reply)
          expect(result.id).toBe("r-1")
          expect(result.result).toMatchObject({ kind: "message", role: "agent", metadata: { skill: "search" } })
          const data = result.result.parts.find((p) => p.kind === "data")!
          expect(data.data!.items.length).toBeGreaterThan(0)
          expect(data.data!.items.map((p) => p.name)).toContain("Økonomi Books")
          expect(result.result.parts.some((p) => p.kind === "text")).toBe(true)
          // Only what the client takes: text alone.
          const textOnly = yield* rpc(
            base,
            send03({
              message: { kind: "message", messageId: "raw-03b", role: "user", parts: [{ kind: "text", text: "okonomi" }] },
              configuration: { acceptedOutputModes: ["text/plain"] }
            })
          )
          expect(bodyOf<{ result: { parts: Array<{ kind: string }> } }>(textOnly).result.parts.map((p) => p.kind)).toEqual(["text"])
          // A bad key on the wire: 401 with the challenge, as POST /vote answers.
          const unauthorized = yield* rpc(
            base,
            send03({
              message: { kind: "message", messageId: "raw-03c", role: "user", parts: [{ kind: "text", text: "vote up okonomi-books" }] }
            }),
            { authorization: "Bearer wrong" }
          )
          expect(unauthorized.status).toBe(401)
          expect(unauthorized.headers.get("www-authenticate")).toMatch(/^Bearer /)
          expect(codeOf(unauthorized)).toBe(-32000)
        })
      )

      it.effect("0.3 JSON-RPC: bad input names every wrong field as sent; 0.3's other methods are refused as 0.3 says", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const invalid = yield* rpc(
            base,
            send03({ message: { messageId: "", role: "agent", parts: [{ kind: "image" }, { kind: "text" }] } })
          )
          expect(invalid.status).toBe(200)
          const error = bodyOf<{ error: { code: number; message: string; data: { fieldViolations: Array<{ field: string }> } } }>(
            invalid
          ).error
          expect(error.code).toBe(-32602)
          expect(error.data.fieldViolations.map((v) => v.field)).toEqual(
            expect.arrayContaining(["message.messageId", "message.role", "message.parts[0].kind"])
          )
          expect(error.message).toContain('"user"')
          const missing = yield* rpc(base, send03({ message: { messageId: "m", role: "user", parts: [{ kind: "text" }] } }))
          expect(bodyOf<{ error: { message: string } }>(missing).error.message).toContain("message.parts[0].text")
          const wrongSkill = yield* rpc(
            base,
            send03({
              message: {
                messageId: "m",
                role: "user",
                parts: [{ kind: "data", data: { skill: "vote", entity_id: "okonomi-books", direction: "sideways", score: 5 } }]
              }
            })
          )
          expect(bodyOf<{ error: { message: string } }>(wrongSkill).error.message).toMatch(/message\.parts\[0\]\.data\.direction/)
          expect(bodyOf<{ error: { message: string } }>(wrongSkill).error.message).toMatch(/score is not a field/)

          expect(codeOf(yield* rpc(base, send03({ id: "t-1" }, "tasks/get")))).toBe(-32001)
          expect(codeOf(yield* rpc(base, send03({ id: "t-1" }, "tasks/cancel")))).toBe(-32001)
          // Without a task's id, or with one that is no string, the request is wrong, not the task missing: invalid params.
          for (const params of [{}, { id: 5 }, { id: " " }]) {
            for (const method of ["tasks/get", "tasks/cancel"]) {
              const wrong = yield* rpc(base, send03(params, method))
              expect(codeOf(wrong), `${method} ${JSON.stringify(params)}`).toBe(-32602)
              expect(bodyOf<{ error: { message: string } }>(wrong).error.message).toMatch(/\bid\b/)
            }
          }
          expect(codeOf(yield* rpc(base, send03({ message: {} }, "message/stream")))).toBe(-32004)
          expect(codeOf(yield* rpc(base, send03({ id: "t-1" }, "tasks/resubscribe")))).toBe(-32004)
          expect(codeOf(yield* rpc(base, send03({ taskId: "t-1" }, "tasks/pushNotificationConfig/set")))).toBe(-32003)
          expect(codeOf(yield* rpc(base, send03({}, "agent/getAuthenticatedExtendedCard")))).toBe(-32007)
          expect(codeOf(yield* rpc(base, send03({}, "tasks/list")))).toBe(-32601)
          const file = yield* rpc(
            base,
            send03({ message: { messageId: "f", role: "user", parts: [{ kind: "file", file: { uri: "https://example.com/x.pdf" } }] } })
          )
          expect(codeOf(file)).toBe(-32005)
          // 0.3 stated explicitly is 0.3; 1.0's names without the header point both ways.
          const explicit = yield* rpc(
            base,
            send03({ message: { kind: "message", messageId: "e", role: "user", parts: [{ kind: "text", text: "okonomi" }] } }),
            { "a2a-version": "0.3" }
          )
          expect(bodyOf<{ result: { kind: string } }>(explicit).result.kind).toBe("message")
          const v1Name = yield* rpc(base, send03({}, "SendMessage"))
          expect(bodyOf<{ error: { code: number; message: string } }>(v1Name).error).toMatchObject({
            code: -32009,
            message: expect.stringContaining("A2A-Version: 1.0")
          })
          expect(codeOf(yield* rpc(base, send03({}), { "a2a-version": "0.2" }))).toBe(-32009)
          // The query parameter given twice: two versions are no version (refused naming both), the same one twice is it.
          const hello = send03({ message: { kind: "message", messageId: "q", role: "user", parts: [{ kind: "text", text: "okonomi" }] } })
          const twice = yield* postJson(`${base}/a2a/jsonrpc?A2A-Version=0.3&A2A-Version=1.0`, hello)
          expect(bodyOf<{ error: { code: number; message: string } }>(twice).error).toMatchObject({
            code: -32009,
            message: expect.stringContaining("asked for 0.3, 1.0")
          })
          const same = yield* postJson(`${base}/a2a/jsonrpc?A2A-Version=0.3&A2A-Version=0.3`, hello)
          expect(bodyOf<{ result: { kind: string } }>(same).result.kind).toBe("message")
        })
      )

      it.effect("0.3 HTTP+JSON on the wire: /v1 paths, protobuf JSON, bare {code, message, data} errors, never a 5xx for bad input", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
            postJson(`${base}/a2a/rest${path}`, body, headers)
          const ok = yield* post("/v1/message:send", { message: { messageId: "p", role: "ROLE_USER", content: [{ text: "okonomi" }] } })
          expect(ok.status).toBe(200)
          expect(ok.headers.get("content-type")).toMatch(/^application\/json/)
          const answer = bodyOf<{ message: { role: string; content: Array<{ text?: string; data?: { data: unknown } }> } }>(ok).message
          expect(answer.role).toBe("ROLE_AGENT")
          expect(answer.content.some((p) => p.data !== undefined)).toBe(true)

          const bad = yield* post("/v1/message:send", {
            message: { messageId: "p", role: "user", content: [{ data: { data: { skill: "teleport" } } }] }
          })
          expect(bad.status).toBe(400)
          const error = bodyOf<{ code: number; message: string; data: { fieldViolations: Array<{ field: string }> } }>(bad)
          expect(error.code).toBe(-32602)
          expect(error.data.fieldViolations.map((v) => v.field)).toContain("message.role")
          const skill = yield* post("/v1/message:send", {
            message: { messageId: "p", role: "ROLE_USER", content: [{ data: { data: { skill: "teleport" } } }] }
          })
          expect(skill.text).toContain("message.content[0].data.data.skill")
          // A JSON-RPC body sent here is told which form this binding takes.
          const jsonRpcShape = yield* post("/v1/message:send", {
            message: { messageId: "p", role: "user", parts: [{ kind: "text", text: "okonomi" }] }
          })
          expect(jsonRpcShape.status).toBe(400)
          expect(jsonRpcShape.text).toContain("protobuf JSON")

          const unknown = yield* post("/v1/message:send", {
            message: { messageId: "p", role: "ROLE_USER", content: [{ text: "tell me about no-such-product-at-all" }] }
          })
          expect(unknown.status).toBe(404)
          expect(bodyOf<{ data: { reason: string } }>(unknown).data.reason).toBe("PRODUCT_NOT_FOUND")
          const task = yield* request(`${base}/a2a/rest/v1/tasks/t-1`)
          expect([task.status, bodyOf<{ code: number }>(task).code]).toEqual([404, -32001])
          const card = yield* request(`${base}/a2a/rest/v1/card`)
          expect([card.status, bodyOf<{ code: number }>(card).code]).toEqual([400, -32007])
          const stream = yield* post("/v1/message:stream", {})
          expect([stream.status, bodyOf<{ code: number }>(stream).code]).toEqual([400, -32004])
          const nowhere = yield* post("/v1/teleport", {})
          expect([nowhere.status, bodyOf<{ code: number }>(nowhere).code]).toEqual([404, -32601])
          const unparsable = yield* request(`${base}/a2a/rest/v1/message:send`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{nope"
          })
          expect([unparsable.status, bodyOf<{ code: number }>(unparsable).code]).toEqual([400, -32700])
          // 1.0's path without the header, and 0.3's with A2A-Version: 1.0, say which goes where.
          const v1Path = yield* post("/message:send", { message: { messageId: "p", role: "ROLE_USER", parts: [{ text: "okonomi" }] } })
          expect(v1Path.status).toBe(400)
          expect(v1Path.text).toContain("/v1/message:send")
          const crossed = yield* post("/v1/message:send", {}, { "a2a-version": "1.0" })
          expect(crossed.status).toBe(404)
          expect(crossed.text).toContain("/a2a/rest/message:send")
        })
      )
    })
  })
}
