/**
 * A2A as a third party uses it: the official JS SDK (@a2a-js/sdk) finds the
 * agent from the base URL (createFromUrl), then asks each of the card's skills
 * over both bindings, JSON-RPC and HTTP+JSON, over real HTTP. A vote through
 * A2A is a POST /vote: it shows in the product's view, a bad key is refused
 * the same way. The card's signature is checked with node:crypto over the
 * canonical card the SDK makes (neither made it), and fails once tampered.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, it as plainIt, layer } from "@effect/vitest"
import { type AgentCard, type Message, SendMessageRequest, verifyAgentCardSignature, canonicalizeAgentCard } from "@a2a-js/sdk"
import { type Client, ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client"
import { Cause, Effect, Layer, Option, Redacted } from "effect"
import { Settings } from "@productdir/domain"
import * as MemoryStore from "@productdir/store-memory"
import { createPublicKey, generateKeyPairSync, type JsonWebKey, verify } from "node:crypto"
import { get as httpGet } from "node:http"
import { CardSigner, layer as cardSigning } from "@productdir/a2a/signing"
import { directoryCard } from "@productdir/a2a/card"
import { ApiConfig } from "../src/index.ts"
import { baseUrl, memoryStores, registeredAgent, serverLayer, storeVariants } from "./harness.ts"
import { bodyOf, postJson, request } from "./http.ts"

/** A private JWK of our own, given as A2A_SIGNING_KEY is. */
const signingJwk = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" })

const withVersion = { "a2a-version": "1.0" }

const factory = (preferred: "JSONRPC" | "HTTP+JSON") =>
  new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [preferred] }))

const connect = (base: string, preferred: "JSONRPC" | "HTTP+JSON") => Effect.promise(() => factory(preferred).createFromUrl(base))

let sent = 0
/** A message as the SDK sends it: text parts, or one data part. */
const ask = (client: Client, content: string | Record<string, unknown>, headers: Record<string, string> = {}) =>
  Effect.promise(() =>
    client.sendMessage(
      SendMessageRequest.fromJSON({
        message: {
          messageId: `m-${++sent}`,
          role: "ROLE_USER",
          parts: [typeof content === "string" ? { text: content } : { data: content }]
        }
      }),
      { serviceParameters: headers }
    )
  ).pipe(Effect.map((result) => result as Message))

/** The same, and the error the SDK throws when the agent refuses. */
const refusal = (client: Client, content: string | Record<string, unknown>, headers: Record<string, string> = {}) =>
  Effect.flip(
    Effect.tryPromise({
      try: () =>
        client.sendMessage(
          SendMessageRequest.fromJSON({
            message: {
              messageId: `m-${++sent}`,
              role: "ROLE_USER",
              parts: [typeof content === "string" ? { text: content } : { data: content }]
            }
          }),
          { serviceParameters: headers }
        ),
      catch: (error) => error as Error
    })
  )

const textOf = (message: Message) => message.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])).join("\n")
const dataOf = <T>(message: Message): T => message.parts.find((p) => p.content?.$case === "data")!.content!.value as T

interface Summary {
  readonly id: string
  readonly slug: string
  readonly name: string
  readonly trust: { readonly trust_score: number; readonly trust_up: number }
  readonly links: { readonly agent_view: string; readonly problems: string; readonly vote: { readonly href: string } }
}

const rpc = (base: string, body: unknown, headers: Record<string, string> = withVersion) => postJson(`${base}/a2a/jsonrpc`, body, headers)

const sendText = (text: string) => ({ message: { messageId: "raw-1", role: "ROLE_USER", parts: [{ text }] } })

const variants = [{ name: "memory", stores: memoryStores }, ...storeVariants()]

reportLeftOut("A2A with the official SDK", storesLeftOut())
for (const variant of variants) {
  describe(`A2A with the official SDK (${variant.name})`, () => {
    const settings = { a2aSigningKey: Option.some(Redacted.make(JSON.stringify(signingJwk))) }
    layer(serverLayer(variant.stores(), settings), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("createFromUrl finds the card's JSON-RPC interface, camelCase and signed; HTTP+JSON when preferred", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const client = yield* connect(base, "JSONRPC")
          expect(client.transport.protocolName).toBe("JSONRPC")
          const card = yield* Effect.promise(() => client.getAgentCard())
          // 1.0 first; the same endpoints' 0.3 (a2a-legacy.test.ts) after, as duplicateInterfacesForLegacy lists them.
          expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
            ["JSONRPC", `${base}/a2a/jsonrpc`, "1.0"],
            ["HTTP+JSON", `${base}/a2a/rest`, "1.0"],
            ["JSONRPC", `${base}/a2a/jsonrpc`, "0.3"],
            ["HTTP+JSON", `${base}/a2a/rest`, "0.3"]
          ])
          expect(client.transport.protocolVersion).toBe("1.0")
          expect(card.defaultInputModes).toEqual(["text/plain", "application/json"])
          expect(card.skills.map((s) => s.id)).toEqual(["search", "read-product", "read-problems", "vote"])
          expect(card.securitySchemes.bearer?.scheme).toEqual({
            $case: "httpAuthSecurityScheme",
            value: expect.objectContaining({ scheme: "Bearer" })
          })
          expect(card.capabilities).toMatchObject({ streaming: false, pushNotifications: false, extendedAgentCard: false })
          // The whole card's signature, and the one the SDK's own client path can verify (packages/a2a/src/signing.ts).
          expect(card.signatures).toHaveLength(2)
          const rest = yield* connect(base, "HTTP+JSON")
          expect(rest.transport.protocolName).toBe("HTTP+JSON")
        })
      )

      for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
        it.effect(`${binding}: a need in plain words finds products, with id, name, trust and absolute links`, () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const client = yield* connect(base, binding)
            const answer = yield* ask(client, "find okonomi")
            expect(answer.role).toBe(2) // ROLE_AGENT
            expect(answer.contextId).not.toBe("")
            expect(answer.metadata).toEqual({ skill: "search" })
            const page = dataOf<{ items: Array<Summary> }>(answer)
            expect(page.items[0]).toMatchObject({ name: "Økonomi Books", slug: "okonomi-books" })
            expect(page.items[0]!.id).toMatch(/^[0-9a-f-]{36}$/)
            expect(page.items[0]!.trust.trust_score).toBeGreaterThanOrEqual(0)
            expect(page.items[0]!.links.agent_view).toBe(`${base}/entities/okonomi-books?format=agent`)
            expect(textOf(answer)).toMatch(/Økonomi Books \(trust: (no votes yet|\d+\/100 from \d+ votes?)/)
            // Plain words that name no product are a search too, and the data part form asks the same.
            const words = yield* ask(client, "invoicing for freelancers")
            expect(words.metadata).toEqual({ skill: "search" })
            const structured = yield* ask(client, { skill: "search", q: "okonomi", limit: 1 })
            expect(dataOf<{ items: Array<Summary> }>(structured).items.map((p) => p.slug)).toEqual(["okonomi-books"])
          })
        )

        it.effect(`${binding}: a product named returns its decision view; problems of it its problems`, () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const client = yield* connect(base, binding)
            for (const named of ["okonomi-books", "Økonomi Books", "tell me about okonomi-books"]) {
              const answer = yield* ask(client, named)
              expect(answer.metadata).toEqual({ skill: "read-product" })
              const view = dataOf<{ name: string; problems: { total: number }; links: { vote: { href: string } } }>(answer)
              expect(view.name).toBe("Økonomi Books")
              expect(view.links.vote.href).toBe(`${base}/vote`)
              expect(textOf(answer)).toContain("Økonomi Books")
            }
            const problems = yield* ask(client, "problems of okonomi-books")
            expect(problems.metadata).toEqual({ skill: "read-problems" })
            expect(dataOf<{ entity: { slug: string }; total: number }>(problems).entity.slug).toBe("okonomi-books")
            const structured = yield* ask(client, { skill: "read-problems", entity_id: "okonomi-books", limit: 1 })
            expect(dataOf<{ problems: Array<unknown> }>(structured).problems.length).toBeLessThanOrEqual(1)
          })
        )

        it.effect(`${binding}: a vote counts for the key's agent and shows in the product's view, like POST /vote`, () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const client = yield* connect(base, binding)
            const agent = yield* registeredAgent(`a2a-voter-${binding}`)
            const viewOf = Effect.map(request(`${base}/entities/okonomi-books?format=agent`), (r) =>
              bodyOf<{ trust: { trust_up: number; trust_down: number } }>(r)
            )
            const before = yield* viewOf
            const answer = yield* ask(client, "vote up okonomi-books", { Authorization: `Bearer ${agent.apiKey}` })
            expect(answer.metadata).toEqual({ skill: "vote" })
            const outcome = dataOf<{ status: string; counted_as: string; trust: { trust_up: number }; links: { agent_view: string } }>(
              answer
            )
            expect(outcome).toMatchObject({ status: "recorded", counted_as: "agent" })
            expect(outcome.trust.trust_up).toBe(before.trust.trust_up + 1)
            expect(outcome.links.agent_view).toMatch(new RegExp(`^${base}/entities/`))
            // The same vote again, as POST /vote answers it: unchanged; the view shows the one vote.
            const again = yield* ask(
              client,
              { skill: "vote", entity_id: "okonomi-books", direction: "up" },
              { Authorization: `Bearer ${agent.apiKey}` }
            )
            expect(dataOf<{ status: string }>(again).status).toBe("unchanged")
            const after = yield* viewOf
            expect(after.trust.trust_up).toBe(before.trust.trust_up + 1)
            // The same agent's POST /vote is the same vote: down moves it.
            const moved = yield* postJson(
              `${base}/vote`,
              { entity_id: "okonomi-books", direction: "down", reason: "exports fail" },
              agent.authorization
            )
            expect(bodyOf<{ status: string }>(moved).status).toBe("changed")
            expect((yield* viewOf).trust.trust_up).toBe(before.trust.trust_up)
          })
        )

        it.effect(`${binding}: a down vote with its problem, without a key, counts for the address and lists the problem`, () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const client = yield* connect(base, binding)
            const reason = `no offline mode ${binding}`
            const answer = yield* ask(client, `vote down okonomi-books: ${reason}`)
            expect(dataOf<{ counted_as: string; direction: string }>(answer)).toMatchObject({ counted_as: "address", direction: "down" })
            const problems = bodyOf<{ problems: Array<{ quotes: Array<{ text: string }> }> }>(
              yield* request(`${base}/entities/okonomi-books/problems?limit=100`)
            )
            // The voter's words are a quote of the problem, not the directory's summary of it.
            expect(problems.problems.flatMap((p) => p.quotes.map((q) => q.text))).toContain(reason)
          })
        )

        it.effect(`${binding}: plain words with long runs of spaces and closing punctuation read as the short ones do`, () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const client = yield* connect(base, binding)
            // Runs like these once cost the patterns time quadratic in their length (0.6 s for 16,000 spaces).
            const reason = `offline ${binding}`
            const answer = yield* ask(
              client,
              `vote   down${" ".repeat(3_000)}"okonomi-books${".".repeat(3_000)}!"${" ".repeat(3_000)}:  ${reason}`
            )
            expect(dataOf<{ counted_as: string; direction: string; entity_id: string }>(answer)).toMatchObject({
              direction: "down",
              entity_id: bodyOf<{ id: string }>(yield* request(`${base}/entities/okonomi-books`)).id
            })
            const problems = bodyOf<{ problems: Array<{ quotes: Array<{ text: string }> }> }>(
              yield* request(`${base}/entities/okonomi-books/problems?limit=100`)
            )
            // The voter's words are a quote of the problem, not the directory's summary of it.
            expect(problems.problems.flatMap((p) => p.quotes.map((q) => q.text))).toContain(reason)
            const read = yield* ask(client, `problems of${" ".repeat(5_000)}okonomi-books${" ".repeat(5_000)}?`)
            expect(JSON.stringify(read)).toContain("okonomi-books")
          })
        )

        it.effect(`${binding}: a bad key is refused as POST /vote refuses it; bad input names every wrong field`, () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const client = yield* connect(base, binding)
            const bad = { Authorization: "Bearer pd_not-a-real-key" }
            const viaHttp = yield* postJson(`${base}/vote`, { entity_id: "okonomi-books" }, { authorization: bad.Authorization })
            expect(viaHttp.status).toBe(401)
            const detail = bodyOf<{ detail: string }>(viaHttp).detail
            const refused = yield* refusal(client, "vote up okonomi-books", bad)
            expect(refused.message).toContain(detail)
            const wrong = yield* refusal(client, { skill: "vote", entity_id: "Not A Slug", direction: "sideways", score: 5 })
            expect(wrong.message).toMatch(/entity_id must be/)
            expect(wrong.message).toMatch(/direction must be "up" or "down"/)
            expect(wrong.message).toMatch(/score is not a field of this request/)
            // A rule between fields is named beside the other wrong ones, as POST /vote names it.
            const rule = yield* refusal(client, { skill: "vote", entity_id: "okonomi-books", direction: "up", reason: "x", extra: 1 })
            expect(rule.message).toMatch(/extra is not a field of this request/)
            expect(rule.message).toMatch(/reason goes only with direction "down"/)
            const unknown = yield* refusal(client, "tell me about no-such-product-at-all")
            expect(unknown.message).toContain('No product has the id or slug "no-such-product-at-all"')
          })
        )
      }

      it.effect(
        "JSON-RPC on the wire: 401 with the challenge, -32602 with field violations, the spec's errors for what is not offered",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const send = (params: unknown, method = "SendMessage") => ({ jsonrpc: "2.0", id: 7, method, params })
            const unauthorized = yield* rpc(base, send(sendText("okonomi")), { ...withVersion, authorization: "Bearer wrong" })
            expect(unauthorized.status).toBe(401)
            expect(unauthorized.headers.get("www-authenticate")).toMatch(/^Bearer /)
            expect(bodyOf<{ id: number; error: { code: number } }>(unauthorized)).toMatchObject({ id: 7, error: { code: -32000 } })

            const invalid = yield* rpc(base, send({ message: { role: "ROLE_AGENT", parts: [] } }))
            expect(invalid.status).toBe(200)
            const error = bodyOf<{ error: { code: number; data: Array<{ "@type": string; fieldViolations?: Array<{ field: string }> }> } }>(
              invalid
            ).error
            expect(error.code).toBe(-32602)
            const fields = error.data.find((d) => d["@type"].endsWith("google.rpc.BadRequest"))!.fieldViolations!.map((v) => v.field)
            expect(fields).toEqual(expect.arrayContaining(["message.messageId", "message.role", "message.parts"]))

            const codeOf = (reply: { json: unknown }) => (reply.json as { error?: { code: number } }).error?.code
            // No A2A-Version: read as 0.3, whose name for it is message/send (a2a-legacy.test.ts).
            const unversioned = yield* rpc(base, send(sendText("okonomi")), {})
            expect(bodyOf<{ error: { code: number; message: string } }>(unversioned).error).toMatchObject({
              code: -32009,
              message: expect.stringContaining("message/send")
            })
            expect(codeOf(yield* rpc(base, send(sendText("okonomi"), "SendStreamingMessage")))).toBe(-32004)
            expect(codeOf(yield* rpc(base, send({ id: "t-1" }, "GetTask")))).toBe(-32001)
            // A wrong request is said as one, though no task is kept: no id, a page size out of range.
            const noId = bodyOf<{ error: { code: number; message: string } }>(yield* rpc(base, send({}, "GetTask"))).error
            expect(noId).toMatchObject({ code: -32602, message: expect.stringContaining("id is required") })
            for (const pageSize of [-5, 0, 101, 2.5, "10"]) {
              expect(codeOf(yield* rpc(base, send({ pageSize }, "ListTasks"))), String(pageSize)).toBe(-32602)
            }
            expect(codeOf(yield* rpc(base, send({ pageSize: 10 }, "ListTasks")))).toBeUndefined()
            expect(codeOf(yield* rpc(base, send({ taskId: "t-1" }, "CreateTaskPushNotificationConfig")))).toBe(-32003)
            expect(codeOf(yield* rpc(base, send({}, "GetExtendedAgentCard")))).toBe(-32004)
            const renamed = yield* rpc(base, send(sendText("okonomi"), "message/send"))
            expect(bodyOf<{ error: { code: number; message: string } }>(renamed).error).toMatchObject({
              code: -32601,
              message: expect.stringContaining("SendMessage")
            })
            // A method named for a property every object has is just an unknown method.
            for (const method of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
              const unknown = bodyOf<{ error: { code: number; message: string } }>(yield* rpc(base, send({}, method))).error
              expect(unknown.code, method).toBe(-32601)
              expect(unknown.message, method).toBe(`Method not found: ${method}. This agent answers SendMessage (A2A 1.0).`)
            }
            expect(
              codeOf(
                yield* request(`${base}/a2a/jsonrpc`, {
                  method: "POST",
                  headers: { "content-type": "application/json", ...withVersion },
                  body: "{nope"
                })
              )
            ).toBe(-32700)
            const files = yield* rpc(
              base,
              send({ message: { messageId: "f", role: "ROLE_USER", parts: [{ url: "https://example.com/x.pdf" }] } })
            )
            expect(codeOf(files)).toBe(-32005)
          })
      )

      it.effect("HTTP+JSON on the wire: google.rpc.Status errors with ErrorInfo, never a 5xx for bad input", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const post = (path: string, body: unknown) => postJson(`${base}/a2a/rest${path}`, body, withVersion)
          const task = yield* request(`${base}/a2a/rest/tasks/t-1`, { headers: withVersion })
          expect(task.status).toBe(404)
          expect(bodyOf<{ error: { status: string; details: Array<{ reason?: string }> } }>(task).error).toMatchObject({
            status: "NOT_FOUND",
            details: [expect.objectContaining({ reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" })]
          })
          const bad = yield* post("/message:send", {
            message: { messageId: "x", role: "ROLE_USER", parts: [{ data: { skill: "teleport" } }] }
          })
          expect(bad.status).toBe(400)
          expect(bad.text).toContain("message.parts[0].data.skill")
          // A part is one of text, raw, url and data: one with two is not read as either.
          const mixed = yield* post("/message:send", {
            message: { messageId: "x", role: "ROLE_USER", parts: [{ text: "okonomi", data: { skill: "search", q: "crm" } }] }
          })
          expect(mixed.status).toBe(400)
          expect(mixed.text).toContain("message.parts[0]")
          expect(mixed.text).toContain("more than one of text, raw, url and data")
          const unknown = yield* post("/message:send", sendText("tell me about no-such-product-at-all"))
          expect(unknown.status).toBe(404)
          const stream = yield* post("/message:stream", sendText("okonomi"))
          expect(stream.status).toBe(400)
          expect(bodyOf<{ error: { details: Array<{ reason?: string }> } }>(stream).error.details[0]!.reason).toBe("UNSUPPORTED_OPERATION")
          const nowhere = yield* post("/teleport", {})
          expect(nowhere.status).toBe(404)
          // A path served under another method says which, as every path does; HEAD answers as GET does.
          for (const [method, path, allow] of [
            ["DELETE", "/message:send", "POST"],
            ["GET", "/message:send", "POST"],
            ["POST", "/tasks/t-1", "GET, HEAD"],
            ["DELETE", "/v1/message:send", "POST"]
          ] as const) {
            const wrong = yield* request(`${base}/a2a/rest${path}`, { method, headers: withVersion })
            expect(wrong.status, `${method} ${path}`).toBe(405)
            expect(wrong.headers.get("allow"), `${method} ${path}`).toBe(allow)
            expect(wrong.headers.get("content-type")).toMatch(/^application\/problem\+json/)
          }
          expect((yield* request(`${base}/a2a/rest/tasks/t-1`, { method: "HEAD", headers: withVersion })).status).toBe(404)
          // ListTasks' page size, in the query over HTTP+JSON, is checked as over JSON-RPC.
          for (const pageSize of ["0", "101", "abc", "-5"]) {
            expect((yield* request(`${base}/a2a/rest/tasks?pageSize=${pageSize}`, { headers: withVersion })).status, pageSize).toBe(400)
          }
          expect((yield* request(`${base}/a2a/rest/tasks?pageSize=10`, { headers: withVersion })).status).toBe(200)
          expect((yield* request(`${base}/a2a/rest/tasks`, { headers: withVersion })).status).toBe(200)
          expect((yield* request(`${base}/a2a/rest/v1/card`, { method: "HEAD" })).status).toBe(400)
          const ok = yield* post("/message:send", sendText("okonomi"))
          expect(ok.status).toBe(200)
          expect(ok.headers.get("content-type")).toMatch(/^application\/a2a\+json/)
        })
      )

      it.effect("the card's signature verifies with node:crypto over the SDK's canonical card and its JWKS; a tampered card fails", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          // The 1.0 card, asked for as the SDK asks (without the header: the 0.3 card, a2a-legacy.test.ts).
          const card = bodyOf<AgentCard & { signatures: Array<{ protected: string; signature: string }> }>(
            yield* request(`${base}/.well-known/agent-card.json`, { headers: withVersion })
          )
          const [signature] = card.signatures
          const header = JSON.parse(Buffer.from(signature!.protected, "base64url").toString()) as Record<string, string>
          expect(header).toMatchObject({ alg: "ES256", typ: "JOSE", jku: `${base}/.well-known/jwks.json` })
          const jwks = bodyOf<{ keys: Array<JsonWebKey & { kid: string }> }>(yield* request(header.jku!))
          const jwk = jwks.keys.find((k) => k.kid === header.kid)!
          expect(jwk).toMatchObject({ kty: "EC", crv: "P-256", x: signingJwk.x, y: signingJwk.y })
          expect(jwk).not.toHaveProperty("d")
          const publicKey = createPublicKey({ key: jwk, format: "jwk" })
          const verifies = (served: AgentCard) =>
            verify(
              "sha256",
              Buffer.from(`${signature!.protected}.${Buffer.from(canonicalizeAgentCard(served)).toString("base64url")}`),
              { key: publicKey, dsaEncoding: "ieee-p1363" },
              Buffer.from(signature!.signature, "base64url")
            )
          expect(verifies(card)).toBe(true)
          const tampered = { ...card, description: `${card.description} Now free forever.` }
          expect(verifies(tampered)).toBe(false)
          // The SDK's own verifier (jose underneath, as our signer) agrees, on the card as served.
          const verifier = verifyAgentCardSignature(async (kid) => jwks.keys.find((k) => k.kid === kid)! as never)
          yield* Effect.promise(() => verifier(card))
          const forged = yield* Effect.flip(Effect.tryPromise({ try: () => verifier(tampered), catch: (error) => error as Error }))
          expect(forged.message).toContain("No valid signatures")
        })
      )

      it.effect(
        "the SDK's own client verifies the card it fetched (createFromUrl, then getAgentCard with a verifier); a forged one fails",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            // A verifier that takes keys only from the directory's own JWK Set (as docs/api.md tells a client to).
            const verifier = verifyAgentCardSignature(async (kid, jku) => {
              if (jku === undefined || new URL(jku).origin !== new URL(base).origin) throw new Error(`untrusted jku ${jku}`)
              const { keys } = (await (await fetch(jku)).json()) as { keys: Array<JsonWebKey & { kid: string }> }
              const key = keys.find((k) => k.kid === kid)
              if (key === undefined) throw new Error(`no key ${kid}`)
              return key as never
            })
            const client = yield* connect(base, "JSONRPC")
            const card = yield* Effect.promise(() => client.getAgentCard(undefined, verifier))
            expect(card.securitySchemes.bearer?.scheme?.$case).toBe("httpAuthSecurityScheme")
            // The same path over a card someone changed: refused.
            const raw = bodyOf<AgentCard>(yield* request(`${base}/.well-known/agent-card.json`, { headers: withVersion }))
            const forged = yield* Effect.promise(() =>
              new ClientFactory(ClientFactoryOptions.default).createFromAgentCard({ ...raw, description: "Now free forever." })
            )
            const error = yield* Effect.flip(
              Effect.tryPromise({ try: () => forged.getAgentCard(undefined, verifier), catch: (e) => e as Error })
            )
            expect(error.message).toContain("No valid signatures")
          })
      )

      it.effect(
        "without PUBLIC_URL, a card asked for under another host is served for it unsigned: the directory vouches only for its own address",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const cardFor = (host: string) =>
              Effect.promise(
                () =>
                  new Promise<{ status: number; card: AgentCard & { signatures?: unknown } }>((resolve, reject) =>
                    httpGet(`${base}/.well-known/agent-card.json`, { headers: { host, ...withVersion } }, (response) => {
                      let text = ""
                      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
                      response.on("end", () => resolve({ status: response.statusCode ?? 0, card: JSON.parse(text) }))
                    }).on("error", reject)
                  )
              )
            // Anyone can send any Host: the directory's key must not sign interfaces at a host of theirs.
            const foreign = yield* cardFor("evil.example")
            expect(foreign.status).toBe(200)
            expect(foreign.card.signatures).toBeUndefined()
            expect(JSON.stringify(foreign.card)).toContain("http://evil.example/a2a/jsonrpc")
            // A loopback name is this machine's: signed, as the card of the address the test reached.
            const own = yield* cardFor(new URL(base).host)
            expect(own.card.signatures).toHaveLength(2)
            expect((yield* cardFor(`localhost:${new URL(base).port}`)).card.signatures).toHaveLength(2)
          })
      )
    })
  })
}

describe("the card's key when A2A_SIGNING_KEY is not set", () => {
  plainIt("is generated once and kept in the store: every process on one store signs with the same key", async () => {
    const twoProcesses = Effect.gen(function* () {
      const settings = yield* Settings
      // Each a fresh build of the layer, as each API process makes its own.
      const signerOn = Effect.provide(
        Effect.gen(function* () {
          return yield* CardSigner
        }),
        Layer.fresh(cardSigning.pipe(Layer.provide(Layer.succeed(Settings, settings)), Layer.provide(ApiConfig.layerWith())))
      )
      const first = yield* signerOn
      const second = yield* signerOn
      const base = "http://a2a.example"
      const card = yield* first.sign(directoryCard(base), base)
      return { first: first.jwks.keys, second: second.jwks.keys, card }
    }).pipe(Effect.provide(MemoryStore.layer))
    const { first, second, card } = await Effect.runPromise(twoProcesses)
    expect(first).toHaveLength(1)
    expect(second).toEqual(first)
    expect(first[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" })
    const header = JSON.parse(Buffer.from(card.signatures![0]!.protected, "base64url").toString()) as { kid: string }
    expect(header.kid).toBe(first[0]!.kid)
  })

  plainIt("a key that is not a private JWK stops the start with a message naming A2A_SIGNING_KEY", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.provide(
        Effect.gen(function* () {
          return yield* CardSigner
        }),
        cardSigning.pipe(
          Layer.provide(MemoryStore.layer),
          Layer.provide(ApiConfig.layerWith({ a2aSigningKey: Option.some(Redacted.make(JSON.stringify({ kty: "EC", crv: "P-256" }))) }))
        )
      )
    )
    expect(exit._tag).toBe("Failure")
    expect(String(exit._tag === "Failure" ? Cause.squash(exit.cause) : "")).toMatch(/A2A_SIGNING_KEY must be a private JWK/)
  })
})
