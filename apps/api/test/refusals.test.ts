/**
 * Every refusal is a problem document in plain words, whatever was wrong and
 * whoever noticed (the body parser, the schema, the HTTP parser, the front
 * door): no schema identifiers, no doubled field names, every wrong field at
 * once, and text that would show one thing and say another is refused.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { connect } from "node:net"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { bodyOf, postJson, type ProblemBody, type Reply, request } from "./http.ts"

const product = sampleCatalog()[0]!

/** Raw HTTP on one socket: what came back before the server closed it (or 3 s passed). */
const raw = (base: string, text: string) =>
  Effect.callback<string>((resume) => {
    const { hostname, port } = new URL(base)
    const socket = connect(Number(port), hostname)
    let reply = ""
    const timer = setTimeout(() => {
      socket.destroy()
      resume(Effect.succeed(reply))
    }, 3_000)
    socket.setEncoding("utf8").on("data", (d: string) => (reply += d))
    socket.on("error", () => undefined)
    socket.on("close", () => {
      clearTimeout(timer)
      resume(Effect.succeed(reply))
    })
    socket.write(text)
  })

const send = (url: string, body: string, contentType = "application/json") =>
  request(url, { method: "POST", headers: { "content-type": contentType }, body })

/** A 4xx problem whose words are meant for people: no schema names, no "Expected …" of the parser. */
const plainProblem = (reply: Reply, where: string, status = 400) => {
  expect(reply.status, where).toBe(status)
  expect(reply.headers.get("content-type"), where).toMatch(/^application\/problem\+json/)
  expect(reply.headers.get("x-request-id"), where).toBeTruthy()
  const problem = bodyOf<ProblemBody>(reply)
  expect(problem.detail, where).not.toMatch(/Expected|VoteRequest|AgentRegistration|\bthe request Expected/)
  return problem
}

describe("refusals in plain words", () => {
  layer(serverLayer(memoryStores()), { excludeTestServices: true })((it) => {
    it.effect("a body that is not a JSON object: said of the body, on every endpoint that takes one", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        for (const path of ["/vote", "/agents"]) {
          const broken = plainProblem(yield* send(`${base}${path}`, "{bad"), `${path} broken JSON`)
          expect(broken.detail).toContain("the body is not valid JSON")
          for (const body of ["", "[]", "null", '"text"', "42"]) {
            const problem = plainProblem(yield* send(`${base}${path}`, body), `${path} ${JSON.stringify(body)}`)
            expect(problem.detail, `${path} ${JSON.stringify(body)}`).toContain("the body must be an object")
          }
        }
      })
    )

    it.effect("a field's name is said once, and a rule between fields is named beside the other wrong fields", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const blank = plainProblem(yield* postJson(`${base}/agents`, { name: "  " }), "blank name")
        expect(blank.detail).toBe("1 field is not right: name must not be blank (spaces or invisible characters only).")
        // Invisible characters are as blank as spaces: a zero-width space, a grapheme joiner, the Hangul filler.
        for (const invisible of ["\u200b", " \u200b \u00a0", "\u034f\u034f", "\u3164", "\u2800"]) {
          const name = plainProblem(yield* postJson(`${base}/agents`, { name: invisible }), JSON.stringify(invisible))
          expect(name.detail).toContain("name must not be blank")
          const reason = plainProblem(
            yield* postJson(`${base}/vote`, { entity_id: product.id, direction: "down", reason: invisible }),
            JSON.stringify(invisible)
          )
          expect(reason.detail).toBe("1 field is not right: reason must not be blank (spaces or invisible characters only).")
        }
        const both = plainProblem(
          yield* postJson(`${base}/vote`, { entity_id: product.id, direction: "up", reason: "x", voter_id: "" }),
          "voter_id and reason"
        )
        expect(both.errors?.map((e) => e.path.join(".")).sort()).toEqual(["payload.reason", "payload.voter_id"])
        expect(both.detail).toContain('reason goes only with direction "down"')
        expect(both.detail).toContain("voter_id must not be empty")
        // The rule alone still reads the same.
        const rule = plainProblem(yield* postJson(`${base}/vote`, { entity_id: product.id, reason: "x" }), "reason alone")
        expect(rule.errors?.map((e) => e.path.join("."))).toEqual(["payload.reason"])
      })
    )

    it.effect("an oversized body is refused in words that fit the endpoint", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const big = JSON.stringify({ name: "x".repeat(20_000) })
        for (const path of ["/vote", "/agents", "/mcp"]) {
          const reply = yield* request(`${base}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
            body: big
          })
          const problem = plainProblem(reply, path, 413)
          expect(problem.detail).not.toMatch(/a vote body/)
          expect(problem.detail).toContain("16 KiB")
        }
      })
    )

    it.effect("a body refused on its headers is refused before it is sent (Expect: 100-continue); a foreign transfer coding is a 501", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const head = (headers: string) =>
          raw(base, `POST /vote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}Expect: 100-continue\r\n\r\n`)
        // Over 16 KiB, content-encoded: the final answer first, no 100 Continue asking for a body that is refused.
        const large = yield* head("Content-Length: 100000\r\n")
        expect(large).toMatch(/^HTTP\/1\.1 413 /)
        expect(large).not.toContain("100 Continue")
        expect(large.toLowerCase()).toContain("connection: close")
        expect(yield* head("Content-Length: 20\r\nContent-Encoding: gzip\r\n")).toMatch(/^HTTP\/1\.1 415 /)
        // A body that will be read is asked for, and answered once sent.
        const body = JSON.stringify({ entity_id: product.id, direction: "up" })
        const asked = yield* raw(
          base,
          `POST /vote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n${body}`
        )
        expect(asked).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 20[01] /)
        // gzip bytes under chunked were read as the JSON body ("not valid UTF-8"): the coding is not decoded here.
        const coded = yield* raw(
          base,
          `POST /vote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\n\x1f\x8b\x08\r\n0\r\n\r\n`
        )
        expect(coded).toMatch(/^HTTP\/1\.1 501 /)
        expect(coded).toContain("Transfer-Encoding: gzip, chunked")
        // Chunked alone is read as always.
        const chunked = yield* raw(
          base,
          `POST /vote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
        )
        expect(chunked).toMatch(/^HTTP\/1\.1 20[01] /)
      })
    )

    it.effect("a body declared in a charset other than UTF-8 is refused; UTF-8 said or unsaid is read", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const body = JSON.stringify({ entity_id: product.id })
        for (const charset of ["utf-16", "UTF-16LE", "iso-8859-1", '"latin1"']) {
          const problem = plainProblem(yield* send(`${base}/vote`, body, `application/json; charset=${charset}`), charset, 415)
          expect(problem.detail).toContain("UTF-8")
        }
        for (const contentType of ["application/json; charset=utf-8", "application/json;charset=UTF-8", "application/json"]) {
          expect((yield* send(`${base}/vote`, body, contentType)).status, contentType).toBeLessThan(300)
        }
      })
    )

    it.effect("text that reads as something else (bidirectional overrides) and contacts that are not addresses are refused", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        for (const name of ["evil\u202eagent", "a\u202ab", "\u2066isolated\u2069"]) {
          const problem = plainProblem(yield* postJson(`${base}/agents`, { name }), JSON.stringify(name))
          expect(problem.errors?.map((e) => e.path.join("."))).toEqual(["payload.name"])
        }
        const reason = plainProblem(
          yield* postJson(`${base}/vote`, { entity_id: product.id, direction: "down", reason: "fine\u202e enif" }),
          "reason"
        )
        expect(reason.errors?.map((e) => e.path.join("."))).toEqual(["payload.reason"])
        for (const contact of ["javascript:alert(1)", "data:text/html,x", "ftp://example.com", "not an address", "https://"]) {
          const problem = plainProblem(yield* postJson(`${base}/agents`, { name: "bot", contact }), contact)
          expect(problem.detail).toContain("contact must be an email address")
        }
        for (const contact of ["ops@example.com", "mailto:ops@example.com", "https://example.com/contact"]) {
          expect((yield* postJson(`${base}/agents`, { name: "bot", contact })).status, contact).toBe(201)
        }
        // Right-to-left text needs no override: it is accepted as it is.
        expect((yield* postJson(`${base}/agents`, { name: "وكيل البحث" })).status).toBe(201)
      })
    )

    it.effect("a ; or # in a path is part of the path: never read as the start of a query, never another resource's answer", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const slug = "tallyhouse" // a product of the sample catalog
        // The router cut paths at ; and answered what came before it: the record for a list of problems, the catalog for a search.
        const problems = yield* request(`${base}/entities/${slug};x/problems`)
        expect(problems.status).toBe(400)
        expect(
          bodyOf<ProblemBody & { errors?: ReadonlyArray<{ path: ReadonlyArray<string> }> }>(problems).errors?.map((e) => e.path)
        ).toEqual([["params", "slug"]])
        expect((yield* request(`${base}/products;x?q=invoice`)).status).toBe(404)
        expect((yield* request(`${base}/products;q=invoice`)).status).toBe(404)
        expect((yield* request(`${base}/products/${product.id};/agent-card`)).status).toBe(400)
        expect((yield* request(`${base}/entities/${slug};jsessionid=1`)).status).toBe(400)
        // A # cannot be sent by fetch (it is a fragment there), only on the wire.
        const fragment = yield* raw(base, `GET /entities/${slug}#x/problems HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
        expect(fragment).toMatch(/^HTTP\/1\.1 400 /)
        expect(fragment).toContain("slug")
        // Without them, the same paths answer as always.
        expect((yield* request(`${base}/entities/${slug}/problems`)).status).toBe(200)
        expect((yield* request(`${base}/products/${product.id}/agent-card`)).status).toBe(200)
      })
    )

    it.effect("refusals of the HTTP layer itself are problems too: no Host, a malformed one, an unknown expectation, a tunnel", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const noHost = yield* raw(base, "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")
        expect(noHost).toMatch(/^HTTP\/1\.1 400 /)
        expect(noHost.toLowerCase()).toContain("content-type: application/problem+json")
        expect(noHost.toLowerCase()).toContain("x-request-id:")
        expect(noHost).toContain("Host header")
        // HTTP/1.0 has no Host requirement.
        expect(yield* raw(base, "GET /healthz HTTP/1.0\r\n\r\n")).toMatch(/^HTTP\/1\.1 200 /)
        // Two Host headers: which one a proxy in front routed by is unknown, so neither is served (RFC 9112).
        for (const version of ["1.1", "1.0"]) {
          const twoHosts = yield* raw(
            base,
            `GET /healthz HTTP/${version}\r\nHost: 127.0.0.1\r\nhost: other.example\r\nConnection: close\r\n\r\n`
          )
          expect(twoHosts, version).toMatch(/^HTTP\/1\.1 400 /)
          expect(twoHosts).toContain("one Host header")
        }
        // A Host that is not a host and a port: the service builds absolute links (and its card) from it.
        for (const host of [
          "a b",
          "user@evil.example",
          "evil.example/x#",
          "evil.example:port",
          "evil.example:123456",
          "[::1",
          "ex ample.com:80"
        ]) {
          const answer = yield* raw(base, `GET /.well-known/agent-card.json HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
          expect(answer, host).toMatch(/^HTTP\/1\.1 400 /)
          expect(answer, host).toContain("Host header must be a host name or address")
          expect(answer, host).not.toContain("evil.example")
        }
        for (const host of ["localhost", "127.0.0.1:3000", "[::1]:8080", "api.example.", "my_host.internal", "xn--bcher-kva.example"]) {
          expect(yield* raw(base, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`), host).toMatch(/^HTTP\/1\.1 200 /)
        }
        // Any header a request carries once, given twice: Node would keep the first, a proxy may have read the other.
        // A product no other test here votes on.
        const untouched = sampleCatalog()[23]!
        const body = JSON.stringify({ entity_id: untouched.id, direction: "up" })
        for (const [name, twice] of [
          ["Authorization", "Authorization: Bearer pdk_one\r\nauthorization: Bearer pdk_two\r\n"],
          ["Content-Type", "Content-Type: application/json\r\nContent-Type: text/plain\r\n"]
        ] as const) {
          const answer = yield* raw(
            base,
            `POST /vote HTTP/1.1\r\nHost: x\r\n${twice}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`
          )
          expect(answer, name).toMatch(/^HTTP\/1\.1 400 /)
          expect(answer, name).toContain(`must carry one ${name} header`)
        }
        // Nothing of them counted: this address's vote is still its first.
        expect((yield* postJson(`${base}/vote`, { entity_id: untouched.id, direction: "up" })).status).toBe(201)
        // A header whose repeats make one list is read as one.
        const forwarded = yield* raw(
          base,
          "GET /healthz HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
        )
        expect(forwarded).toMatch(/^HTTP\/1\.1 200 /)
        // What Node refuses before any route (not HTTP at all, headers too large) carries a request id as well.
        for (const refused of ["NOT HTTP AT ALL\r\n\r\n", `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`]) {
          const answer = yield* raw(base, refused)
          expect(answer).toMatch(/^HTTP\/1\.1 4(00|31) /)
          expect(answer.toLowerCase()).toMatch(/x-request-id: [0-9a-f-]{36}/)
        }
        // RFC 9110 lets a server ignore an expectation it does not know: the request is answered.
        const expectation = yield* raw(base, "GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: the-unexpected\r\nConnection: close\r\n\r\n")
        expect(expectation).toMatch(/^HTTP\/1\.1 200 /)
        const tunnel = yield* raw(base, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        expect(tunnel).toMatch(/^HTTP\/1\.1 405 /)
        expect(tunnel.toLowerCase()).toContain("content-type: application/problem+json")
        expect(tunnel).toContain("not a proxy")
      })
    )

    it.effect("A2A refuses a body it will not read in its own envelopes: too large (declared or sent in chunks), encoded, not UTF-8", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        // Each door of A2A: JSON-RPC and HTTP+JSON, A2A 1.0 (A2A-Version: 1.0) and 0.3 (no version), and how each says an error.
        const doors = [
          { path: "/a2a/jsonrpc", version: "1.0", rpc: true },
          { path: "/a2a/jsonrpc", version: undefined, rpc: true },
          { path: "/a2a/rest/message:send", version: "1.0", rpc: false },
          { path: "/a2a/rest/v1/message:send", version: undefined, rpc: false }
        ] as const
        // A2A 1.0's message and method; 0.3's, as JSON-RPC and as HTTP+JSON (its proto's JSON) carry them.
        const bodyFor = (door: (typeof doors)[number], text: string) => {
          if (door.version === "1.0") {
            const params = { message: { role: "ROLE_USER", messageId: "m1", parts: [{ text }] } }
            return JSON.stringify(door.rpc ? { jsonrpc: "2.0", id: 7, method: "SendMessage", params } : params)
          }
          return JSON.stringify(
            door.rpc
              ? {
                  jsonrpc: "2.0",
                  id: 7,
                  method: "message/send",
                  params: { message: { kind: "message", role: "user", messageId: "m1", parts: [{ kind: "text", text }] } }
                }
              : { message: { role: "ROLE_USER", messageId: "m1", content: [{ text }] } }
          )
        }
        /** The error's words, checked to be the envelope the door speaks, with `status`. */
        const refusal = (reply: { status: number; text: string }, door: (typeof doors)[number], status: number) => {
          const where = `${door.path} ${door.version ?? "0.3"}`
          expect(reply.status, where).toBe(status)
          const body = JSON.parse(reply.text) as Record<string, unknown>
          if (door.rpc) {
            // The body was not read, so its id is not known: null, as JSON-RPC answers an unreadable request.
            expect(body, where).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } })
            return (body.error as { message: string }).message
          }
          if (door.version === "1.0") {
            expect(body, where).toMatchObject({ error: { code: status, status: "INVALID_ARGUMENT" } })
            return (body.error as { message: string }).message
          }
          expect(body, where).toMatchObject({ code: -32600 })
          return body.message as string
        }
        for (const door of doors) {
          const headers = { "content-type": "application/json", ...(door.version === undefined ? {} : { "a2a-version": door.version }) }
          const big = bodyFor(door, "x".repeat(20_000))
          const declared = yield* request(`${base}${door.path}`, { method: "POST", headers, body: big })
          expect(refusal(declared, door, 413)).toContain("16 KiB")
          // No Content-Length: the limit is found while reading.
          const { host } = new URL(base)
          const head = Object.entries(headers)
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join("")
          const chunked = yield* raw(
            base,
            `POST ${door.path} HTTP/1.1\r\nHost: ${host}\r\n${head}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
              `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`
          )
          const [statusLine = "", ...rest] = chunked.split("\r\n\r\n")[0]!.split("\r\n")
          expect(
            rest.some((line) => /^content-type: application\/(a2a\+)?json/i.test(line)),
            `${door.path} chunked`
          ).toBe(true)
          expect(
            refusal({ status: Number(statusLine.split(" ")[1]), text: chunked.slice(chunked.indexOf("\r\n\r\n") + 4) }, door, 413)
          ).toContain("16 KiB")
          const gzipped = yield* request(`${base}${door.path}`, {
            method: "POST",
            headers: { ...headers, "content-encoding": "gzip" },
            body: bodyFor(door, "hello")
          })
          expect(refusal(gzipped, door, 415)).toContain("content-encoded")
          expect(gzipped.headers.get("accept-encoding")).toBe("identity")
          const utf16 = yield* request(`${base}${door.path}`, {
            method: "POST",
            headers: { ...headers, "content-type": "application/json; charset=utf-16" },
            body: bodyFor(door, "hello")
          })
          expect(refusal(utf16, door, 415)).toContain("UTF-8")
          // The same door takes the same message when it is small, plain and UTF-8.
          const taken = yield* request(`${base}${door.path}`, { method: "POST", headers, body: bodyFor(door, "search note taking") })
          expect(taken.status, `${door.path} ${door.version ?? "0.3"}`).toBe(200)
          expect(taken.text, `${door.path} ${door.version ?? "0.3"}`).not.toMatch(/"error"/)
        }
      })
    )

    it.effect("a JSON-RPC id a double cannot hold comes back as sent (A2A) or is refused in words (MCP), never as another id", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const big = "12345678901234567890"
        const a2a = (body: string, version?: string) =>
          request(`${base}/a2a/jsonrpc`, {
            method: "POST",
            headers: { "content-type": "application/json", ...(version === undefined ? {} : { "a2a-version": version }) },
            body
          })
        const send10 = (id: string) =>
          `{"jsonrpc":"2.0","id":${id},"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"m1","parts":[{"text":"search pdf"}]}}}`
        // Answered, failed and in A2A 0.3: the id is the request's digits, not JSON.parse's 12345678901234567000.
        const answered = yield* a2a(send10(big), "1.0")
        expect(answered.status).toBe(200)
        expect(answered.text).toContain(`"id":${big},"result":`)
        const failed = yield* a2a(`{"jsonrpc":"2.0","id":-${big},"method":"NoSuchMethod"}`, "1.0")
        expect(failed.text).toContain(`"id":-${big},"error":{"code":-32601`)
        const legacy = yield* a2a(
          `{"jsonrpc":"2.0","id":${big},"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m1","parts":[{"kind":"text","text":"search pdf"}]}}}`
        )
        expect(legacy.text).toContain(`"id":${big},"result":`)
        // Ids a double holds, and strings, as before; a big number elsewhere in the body is no id.
        expect((yield* a2a(send10("9007199254740991"), "1.0")).text).toContain('"id":9007199254740991,')
        expect((yield* a2a(send10(`"${big}"`), "1.0")).text).toContain(`"id":"${big}",`)
        const nested = yield* a2a(`{"jsonrpc":"2.0","id":3,"method":"NoSuchMethod","params":{"id":${big}}}`, "1.0")
        expect(nested.text).toContain('"id":3,')
        // Past a double's range (JSON.parse's Infinity, which JSON writes as null): the id as spelled too.
        for (const huge of ["1e400", "-1.5E+309"]) {
          expect((yield* a2a(send10(huge), "1.0")).text).toContain(`"id":${huge},"result":`)
        }
        // Within it, an exponent is a number like any other (answered as the same number).
        expect((yield* a2a(`{"jsonrpc":"2.0","id":1e300,"method":"NoSuchMethod"}`, "1.0")).json).toMatchObject({ id: 1e300 })

        // MCP: the library reads the body itself, so such an id is refused before it, as input that is no request.
        const initialize = (id: string) =>
          request(`${base}/mcp`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
            body: `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
          })
        const refused = yield* initialize(big)
        expect(refused.status).toBe(400)
        expect(refused.headers.get("mcp-session-id")).toBeNull()
        expect(refused.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } })
        const message = (refused.json as { error: { message: string } }).error.message
        expect(message).toContain(big)
        expect(message).toContain("as a string")
        const taken = yield* initialize("9007199254740991")
        expect(taken.status).toBe(200)
        expect(taken.text).toContain('"id":9007199254740991,')
        // An id past a double's range was answered with id null before: refused in words as well.
        const huge = yield* initialize("1e400")
        expect(huge.status).toBe(400)
        expect(huge.headers.get("mcp-session-id")).toBeNull()
        expect(huge.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } })
        expect((huge.json as { error: { message: string } }).error.message).toContain("the id 1e400 is a number past")
        expect((yield* initialize("1e300")).status).toBe(200)
      })
    )
  })
})
