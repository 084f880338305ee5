/**
 * Bad input is never a 5xx and never a lying status: every hostile value in
 * every place a client controls is answered 4xx problem+json, decided before
 * the store is asked (a store failure would be a 503 with an ERROR log line).
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { gzipSync } from "node:zlib"
import { Effect } from "effect"
import { Base64Url } from "effect/encoding"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, serverLayer, storeVariants } from "./harness.ts"
import { bodyOf, postJson, type ProblemBody, type Reply, request } from "./http.ts"

const product = sampleCatalog()[0]!

/** Values that broke stores or routers: NUL, broken Unicode, control characters, over-long text. */
const NASTY = ["\u0000", "a\u0000b", "\ud800", "x\udfffy", "\u0007bell", "\u001b[31m", "x".repeat(5_000), "%00", "é\u0000"]

const cursorOf = (key: unknown) => Base64Url.encode(JSON.stringify(key))
/** Cursors that decode as JSON, but that no server issued: wrong types, ids, ranges. */
const FORGED_CURSORS = [
  cursorOf({ sort: "trust", score: 50, id: "not-a-uuid" }),
  cursorOf({ sort: "trust", score: 50, id: "00000000-0000-4000-8000-000000000000\u0000" }),
  cursorOf({ sort: "trust", score: 1e308, id: "00000000-0000-4000-8000-000000000000" }),
  cursorOf({ sort: "updated", at: 8.64e15, id: "00000000-0000-4000-8000-000000000000" }),
  cursorOf({ sort: "updated", at: -1e20, id: "00000000-0000-4000-8000-000000000000" }),
  cursorOf({ sort: "name", name: "a\u0000", id: "00000000-0000-4000-8000-000000000000" }),
  cursorOf({ offset: -1 }),
  cursorOf({ offset: 1e300 }),
  cursorOf("just a string"),
  "%%%",
  "A".repeat(3_000)
]

/** Percent-encoding that also carries unpaired surrogates, as the (invalid) UTF-8 bytes a client could send. */
const encode = (value: string): string => [...value].map((ch) => (/\p{Cs}/u.test(ch) ? "%ED%A0%80" : encodeURIComponent(ch))).join("")

const expectRefused = (reply: Reply, where: string) => {
  expect(reply.status, where).toBeGreaterThanOrEqual(400)
  expect(reply.status, where).toBeLessThan(500)
  expect(reply.headers.get("content-type"), where).toMatch(/^application\/problem\+json/)
  if (reply.status === 405) {
    expect(reply.headers.get("allow"), where).toBeTruthy()
  }
  return bodyOf<ProblemBody>(reply)
}

/** A 400 problem that names exactly the field at `field` (its slot, then its name). */
const expectFieldRefused = (reply: Reply, where: string, field: ReadonlyArray<string>) => {
  expect(reply.status, where).toBe(400)
  const body = expectRefused(reply, where) as ProblemBody & { errors?: ReadonlyArray<{ path: ReadonlyArray<string> }> }
  expect(
    body.errors?.map((e) => e.path),
    where
  ).toEqual([field])
}

reportLeftOut("hostile input", storesLeftOut())
for (const variant of storeVariants()) {
  describe(`hostile input on ${variant.name}`, () => {
    layer(serverLayer(variant.stores()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("hostile values in paths, queries and vote fields are 4xx problems, never 5xx", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          for (const value of NASTY) {
            const v = encode(value)
            const label = JSON.stringify(value.slice(0, 20))
            for (const path of [`/entities/${v}`, `/entities/${v}/problems`, `/products/${v}`, `/products/${v}/agent-card`]) {
              expectRefused(yield* request(`${base}${path}`), `${path} ${label}`)
            }
            for (const query of ["q", "category", "cursor", "updated_since", "sort", "limit"]) {
              const reply = yield* request(`${base}/products?${query}=${v}`)
              // Free text may legitimately be "%00": searching for it is an honest empty result. Everything else here
              // is refused, a lone surrogate too (its escapes are not UTF-8).
              const harmless = (query === "q" || query === "category") && value === "%00"
              if (harmless) expect(reply.status, `?${query}=${label}`).toBe(200)
              else expectRefused(reply, `?${query}=${label}`)
            }
            expectRefused(yield* request(`${base}/entities/${product.id}/problems?cursor=${v}`), `problems cursor ${label}`)
            expectRefused(yield* request(`${base}/entities/${product.id}?format=${v}`), `format ${label}`)
            const bodies: Array<Record<string, string>> = [
              { entity_id: value },
              { entity_id: product.id, voter_id: value },
              { entity_id: product.id, direction: value }
            ]
            // "%00" is a fine reason to give; the others are not text anyone means.
            if (value !== "%00") bodies.push({ entity_id: product.id, direction: "down", reason: value, voter_id: "hostile-reason" })
            for (const body of bodies) {
              expectRefused(yield* postJson(`${base}/vote`, body), `vote ${JSON.stringify(Object.keys(body))} ${label}`)
            }
          }
        })
      )

      it.effect(
        "bodies whose work grows with their shape are answered small: deep nesting, repeated names, thousands of unknown fields",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const raw = (path: string, body: string) =>
              request(`${base}${path}`, {
                method: "POST",
                headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
                body
              })
            // 4,000 levels, then an object that repeats one name 1,500 times: 8.5 KB. Each repeat's path was built whole,
            // and the answer named every one (a heap out of memory in the API's capped heap; 6-10 MB answers below it).
            const deepRepeats = `${"[".repeat(4_000)}{${'"",'.repeat(1_500)}""}`
            for (const path of ["/vote", "/agents", "/mcp", "/a2a/jsonrpc", "/nothing-here"]) {
              const reply = yield* raw(path, deepRepeats)
              // A2A's JSON-RPC answers its errors with 200, as JSON-RPC over HTTP does.
              expect(reply.status, path).toBe(path === "/a2a/jsonrpc" ? 200 : 400)
              expect(reply.text.length, path).toBeLessThan(4_096)
              expect(reply.text, path).toContain("more than 32 levels deep")
            }
            // Nesting within the bound, and a name repeated 1,500 times: the first repeats are named, the answer stays small.
            const repeats = yield* raw("/vote", `{"entity_id":"x",${'"a":1,'.repeat(1_500)}"a":1}`)
            expect(repeats.status).toBe(400)
            expect(repeats.text.length).toBeLessThan(8_192)
            expect(repeats.text).toContain("a is given more than once")
            // 1,400 unknown fields (12 KB): every one counted, the first 50 listed, the detail says how many more.
            const fields = Object.fromEntries(Array.from({ length: 1_400 }, (_, i) => [`f${i.toString(36)}`, 1]))
            const unknown = yield* postJson(`${base}/vote`, { entity_id: product.id, ...fields })
            expect(unknown.status).toBe(400)
            const problem = bodyOf<ProblemBody>(unknown)
            expect(problem.detail).toMatch(/^1400 fields are not right: f0 is not a field/)
            expect(problem.detail).toContain("and 1381 more (errors lists the first 50)")
            expect(problem.errors).toHaveLength(50)
            expect(unknown.text.length).toBeLessThan(16_384)
          })
      )

      it.effect("forged cursors are 400s that say the cursor is not one the service issued", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          for (const cursor of FORGED_CURSORS) {
            for (const path of ["/products?", "/products?sort=name&", "/products?sort=updated&", `/entities/${product.id}/problems?`]) {
              const reply = yield* request(`${base}${path}cursor=${encodeURIComponent(cursor)}`)
              expect(reply.status, `${path} ${cursor.slice(0, 40)}`).toBe(400)
              expectRefused(reply, path)
            }
          }
        })
      )

      it.effect(
        "a cursor is a position in its own list: sent with another search or another product's problems, it is refused saying so",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const cursorOf = (reply: Reply) => bodyOf<{ next_cursor: string | null }>(reply).next_cursor!
            const listed = cursorOf(yield* request(`${base}/products?limit=2`))
            // The same list goes on from it; another q, category or updated_since is another list.
            expect((yield* request(`${base}/products?limit=2&cursor=${listed}`)).status).toBe(200)
            for (const other of ["q=invoice", "category=Analytics", "updated_since=2020-01-01T00:00:00Z"]) {
              const reply = yield* request(`${base}/products?limit=2&${other}&cursor=${listed}`)
              expectFieldRefused(reply, other, ["query", "cursor"])
              expect(bodyOf<ProblemBody>(reply).detail, other).toContain("another search")
            }
            const searched = cursorOf(yield* request(`${base}/products?q=data&limit=1`))
            expect((yield* request(`${base}/products?q=data&limit=1&cursor=${searched}`)).status).toBe(200)
            expectFieldRefused(yield* request(`${base}/products?q=invoice&limit=1&cursor=${searched}`), "q", ["query", "cursor"])
            // A product's problems: another product's cursor is not a position in its list.
            const withProblems = sampleCatalog().filter((p) => p.content.not_recommended_for.length + p.content.problems.length >= 2)
            const [first, second] = [withProblems[0]!, withProblems[1]!]
            const problems = cursorOf(yield* request(`${base}/entities/${first.id}/problems?limit=1`))
            expect((yield* request(`${base}/entities/${first.id}/problems?limit=1&cursor=${problems}`)).status).toBe(200)
            const foreign = yield* request(`${base}/entities/${second.id}/problems?limit=1&cursor=${problems}`)
            expectFieldRefused(foreign, "another product's cursor", ["query", "cursor"])
            expect(bodyOf<ProblemBody>(foreign).detail).toContain("another product's problems")
          })
      )

      it.effect("a cursor is sealed: one rebound to another search, or made up from a real one's position, is refused", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const issued = bodyOf<{ next_cursor: string | null }>(yield* request(`${base}/products?q=data&limit=1`)).next_cursor!
          const bound = JSON.parse(Buffer.from(issued, "base64url").toString("utf8")) as { at: string; of: string }
          const position = JSON.parse(Buffer.from(bound.at, "base64url").toString("utf8")) as Record<string, unknown>
          // The public hash a cursor used to be bound with no longer makes one: the seal is a keyed hash.
          const forge = (at: string, of: string) => Buffer.from(JSON.stringify({ at, of })).toString("base64url")
          const edited = Buffer.from(JSON.stringify({ ...position, depth: 0, rank: 999 })).toString("base64url")
          for (const [what, cursor] of [
            ["its position edited", forge(edited, bound.of)],
            ["its seal changed", forge(bound.at, `${bound.of.slice(0, -1)}${bound.of.endsWith("A") ? "B" : "A"}`)]
          ] as const) {
            const reply = yield* request(`${base}/products?q=data&limit=1&cursor=${cursor}`)
            expectFieldRefused(reply, what, ["query", "cursor"])
            expect(bodyOf<ProblemBody>(reply).detail, what).toContain("not issued by this service")
          }
          expect((yield* request(`${base}/products?q=data&limit=1&cursor=${issued}`)).status).toBe(200)
        })
      )

      it.effect(
        "over-long path parameters are a 400 naming the parameter at any length; broken percent-encoding is 400/404, never a 405",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            // 81 characters fail the parameter's own rule; past 100 the router takes no route: the same answer either way.
            for (const [path, name] of [
              [`/entities/${"a".repeat(81)}`, "slug"],
              [`/entities/${"a".repeat(101)}`, "slug"],
              [`/entities/${"a".repeat(101)}/problems`, "slug"],
              [`/entities/${"a".repeat(1_000)}`, "slug"],
              [`/products/${"b".repeat(81)}/agent-card`, "id"],
              [`/products/${"b".repeat(150)}/agent-card`, "id"],
              [`/products/${"c".repeat(150)}`, "id"]
            ] as const) {
              expectFieldRefused(yield* request(`${base}${path}`), path, ["params", name])
            }
            for (const path of ["/products/%zz", "/entities/%zz", "/entities/%E0%A4%A/problems"]) {
              const reply = yield* request(`${base}${path}`)
              expect([400, 404], path).toContain(reply.status)
              expectRefused(reply, path)
            }
            // A 405 comes with an Allow header that does not list the method used.
            const wrong = yield* request(`${base}/products/${product.id}`, { method: "DELETE" })
            expect(wrong.status).toBe(405)
            expect(wrong.headers.get("allow")).toBe("GET, PATCH, HEAD")
            const head = yield* request(`${base}/products/${product.id}`, { method: "HEAD" })
            expect(head.status).toBe(200)
          })
      )

      it.effect("a query string that is not UTF-8 once decoded is a 400 naming the parameter, on every path that reads one", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          for (const [path, name] of [
            ["/products?q=%ED%A0%80", "q"],
            ["/products?q=%FF%FE", "q"],
            ["/products?q=ok&category=%C3", "category"],
            [`/entities/${product.id}?format=%FF`, "format"],
            [`/entities/${product.id}/problems?cursor=%C3%28`, "cursor"],
            [`/products/${product.id}?x%FF=1`, "x%FF"]
          ] as const) {
            expectFieldRefused(yield* request(`${base}${path}`), path, ["query", name])
          }
          // A broken parameter is named beside every other wrong one, not instead of them.
          const several = yield* request(`${base}/products?limit=abc&sort=x&q=%ff`)
          expect(several.status).toBe(400)
          const named = expectRefused(several, "several") as ProblemBody & { errors?: ReadonlyArray<{ path: ReadonlyArray<string> }> }
          expect(named.errors?.map((e) => e.path.join("."))).toEqual(expect.arrayContaining(["query.q", "query.sort", "query.limit"]))
          expect(named.detail).toMatch(/^3 fields are not right: /)
          // Well-formed: accented words and spaces as + or %20 search as always.
          for (const path of ["/products?q=caf%C3%A9", "/products?q=a+b", "/products?q=a%20b"]) {
            expect((yield* request(`${base}${path}`)).status, path).toBe(200)
          }
        })
      )

      it.effect("a wrong path parameter is named beside the query's wrong parameters, not instead of them", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          for (const [path, fields] of [
            ["/entities/Bad_Slug/problems?limit=0", ["params.slug", "query.limit"]],
            ["/entities/bad_slug?format=xml", ["params.slug", "query.format"]],
            ["/entities/bad_slug?format=xml&format=json", ["params.slug", "query.format"]],
            ["/entities/bad_slug/problems?limit=0&cursor=%FF", ["params.slug", "query.limit", "query.cursor"]]
          ] as const) {
            const reply = yield* request(`${base}${path}`)
            expect(reply.status, path).toBe(400)
            const body = expectRefused(reply, path) as ProblemBody & { errors?: ReadonlyArray<{ path: ReadonlyArray<string> }> }
            expect(body.errors?.map((e) => e.path.join(".")).sort(), path).toEqual([...fields].sort())
            expect(body.detail, path).toMatch(new RegExp(`^${fields.length} fields are not right: `))
          }
          // A right query beside a wrong slug: the slug alone.
          const alone = expectRefused(yield* request(`${base}/entities/bad_slug/problems?limit=5`), "alone") as ProblemBody & {
            errors?: ReadonlyArray<{ path: ReadonlyArray<string> }>
          }
          expect(alone.errors?.map((e) => e.path.join("."))).toEqual(["params.slug"])
        })
      )

      it.effect("a vote body must be declared JSON and must not be content-encoded", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const body = JSON.stringify({ entity_id: product.id, voter_id: "hostile" })
          const noType = yield* request(`${base}/vote`, { method: "POST", body: new Blob([body]) })
          expect(noType.status).toBe(415)
          expect(expectRefused(noType, "no content-type").detail).toContain("Content-Type: application/json")
          const gzipped = yield* request(`${base}/vote`, {
            method: "POST",
            headers: { "content-type": "application/json", "content-encoding": "gzip" },
            body: new Uint8Array(gzipSync(Buffer.from(body)))
          })
          expect(gzipped.status).toBe(415)
          expect(gzipped.headers.get("accept-encoding")).toBe("identity")
          const charset = yield* request(`${base}/vote`, {
            method: "POST",
            headers: { "content-type": "application/json; charset=utf-8" },
            body
          })
          expect(charset.status).toBe(201)
          // Nothing refused was counted.
          const again = yield* postJson(`${base}/vote`, { entity_id: product.id, voter_id: "hostile" })
          expect(bodyOf<{ status: string }>(again).status).toBe("unchanged")
        })
      )

      it.effect("a JSON body that gives a name twice is refused naming it, at every door; nothing of it counts", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          // Another product no other test here votes on.
          const target = sampleCatalog()[9]!
          const send = (path: string, body: string, headers: Record<string, string> = {}) =>
            request(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })
          // JSON.parse keeps the last of two names, other parsers the first: a proxy and this service would read two votes.
          const vote = yield* send("/vote", `{"entity_id":"no-such-product","\u0065ntity_id":"${target.id}","direction":"down"}`)
          expectFieldRefused(vote, "vote", ["payload", "entity_id"])
          expect(bodyOf<ProblemBody>(vote).detail).toContain("entity_id is given more than once")
          const nested = yield* send("/agents", `{"name":"bot","contact":"ops@example.com","name":"other"}`)
          expectFieldRefused(nested, "agents", ["payload", "name"])
          // Every wrong field at once: the repeated name beside the body's other mistakes.
          const more = yield* send("/vote", `{"entity_id":"a","entity_id":"${target.id}","x":1,"direction":"bad"}`)
          expect(more.status).toBe(400)
          const errors = (bodyOf<ProblemBody>(more) as ProblemBody & { errors: ReadonlyArray<{ path: ReadonlyArray<string> }> }).errors
          expect(errors.map((e) => e.path.join(".")).sort()).toEqual(["payload.direction", "payload.entity_id", "payload.x"])
          expect(bodyOf<ProblemBody>(more).detail).toMatch(/^3 fields are not right: /)
          const mcp = yield* send(
            "/mcp",
            `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","protocolVersion":"2025-06-18"}}`,
            { accept: "application/json, text/event-stream" }
          )
          expect(mcp.status).toBe(400)
          expect(bodyOf<{ error: { message: string } }>(mcp).error.message).toContain("params.protocolVersion is given more than once")
          const a2a = yield* send(
            "/a2a/rest/message:send",
            `{"message":{"role":"ROLE_USER","messageId":"m1","messageId":"m2","parts":[{"text":"hi"}]}}`,
            { "a2a-version": "1.0" }
          )
          expect(a2a.status).toBe(400)
          expect(a2a.text).toContain("message.messageId")
          // The refused vote counted for nothing: the same address's first vote on the product is new.
          expect((yield* postJson(`${base}/vote`, { entity_id: target.id, direction: "down" })).status).toBe(201)
        })
      )

      it.effect("a JSON body that is not UTF-8 is refused at every door that reads one, and nothing of it is stored", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const bytes = (text: string) => {
            // The JSON around one broken sequence: a lone continuation byte, an overlong form, a cut-off character.
            const [before, after] = text.split("BAD") as [string, string]
            return [0x80, 0xc0, 0xe2].map((bad) =>
              Buffer.concat([Buffer.from(before), Buffer.from([bad, bad === 0xc0 ? 0xaf : 0x20]), Buffer.from(after)])
            )
          }
          // A product no other test here votes on: the well-formed vote at the end must be this address's first.
          const target = sampleCatalog()[7]!
          const send = (path: string, body: Buffer, headers: Record<string, string> = {}) =>
            request(`${base}${path}`, {
              method: "POST",
              headers: { "content-type": "application/json", ...headers },
              body: new Uint8Array(body)
            })
          for (const body of bytes(`{"entity_id":"${target.id}","direction":"down","reason":"broken BAD bytes"}`)) {
            expectRefused(yield* send("/vote", body), "vote")
          }
          for (const body of bytes(`{"name":"botBAD"}`)) expectRefused(yield* send("/agents", body), "agents")
          for (const body of bytes(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"BAD"}}`)) {
            const reply = yield* send("/mcp", body, { accept: "application/json, text/event-stream" })
            expect(reply.status).toBe(400)
            expect(bodyOf<{ error: { code: number; message: string } }>(reply).error).toMatchObject({ code: -32700 })
            expect(bodyOf<{ error: { message: string } }>(reply).error.message).toContain("UTF-8")
          }
          for (const body of bytes(`{"message":{"role":"ROLE_USER","messageId":"m1","parts":[{"text":"BAD"}]}}`)) {
            const reply = yield* send("/a2a/rest/message:send", body, { "a2a-version": "1.0" })
            expect(reply.status).toBe(400)
            expect(reply.text).toContain("UTF-8")
          }
          // Nothing was stored: no report, no vote (the same vote, well formed, is new), no agent named so.
          const problems = yield* request(`${base}/entities/${target.id}/problems`)
          expect(problems.text).not.toContain("broken")
          expect(problems.text).not.toContain("\ufffd")
          const vote = yield* postJson(`${base}/vote`, { entity_id: target.id, direction: "down" })
          expect(vote.status).toBe(201)
          // Well-formed UTF-8 beyond ASCII is welcome.
          const accented = yield* postJson(`${base}/agents`, { name: "bøt-ünïcödé ✓" })
          expect(accented.status).toBe(201)
        })
      )
    })
  })
}
