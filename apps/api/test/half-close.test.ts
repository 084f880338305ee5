/**
 * A client that closes its sending side once its request is written (a shutdown(SHUT_WR), as `nc -N`,
 * some proxies and one-shot scripts do) is still answered: HTTP/1.1 lets a client half-close, and a write
 * done without its answer is the worst of both (an agent registered whose key its client never saw, a
 * vote cast whose outcome it never learnt). Node's server would otherwise abort the request at the
 * client's FIN and write nothing.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { connect } from "node:net"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, serverLayer, storeVariants } from "./harness.ts"
import { request } from "./http.ts"

const product = sampleCatalog()[0]!

/** One request on its own socket, the socket's sending side closed right after it: the reply, whole. */
const halfClosed = (base: string, method: string, path: string, body?: string) =>
  Effect.callback<string>((resume) => {
    const { hostname, port } = new URL(base)
    const socket = connect(Number(port), hostname)
    let reply = ""
    const timer = setTimeout(() => socket.destroy(), 10_000)
    socket.setEncoding("utf8").on("data", (d: string) => (reply += d))
    socket.on("error", () => undefined)
    socket.on("close", () => {
      clearTimeout(timer)
      resume(Effect.succeed(reply))
    })
    const head = [`${method} ${path} HTTP/1.1`, `Host: ${hostname}:${port}`]
    if (body !== undefined) head.push("Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`)
    socket.end(`${head.join("\r\n")}\r\n\r\n${body ?? ""}`)
  })

const statusOf = (reply: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0)
const bodyOf = (reply: string) => JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>

// The SQL stores: a server's answer comes back on a later turn of the event loop than the client's FIN
// (the memory store's, and often PGlite's, come before it, and hid this).
reportLeftOut("a client that half-closes after its request", storesLeftOut())
for (const variant of storeVariants()) {
  describe(`a client that half-closes after its request, on ${variant.name}`, () => {
    layer(serverLayer(variant.stores()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("is answered: a registration returns its key, a vote its outcome, a read its record", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const registered = yield* halfClosed(base, "POST", "/agents", JSON.stringify({ name: "half-closed" }))
          expect(statusOf(registered), registered).toBe(201)
          const key = bodyOf(registered).api_key as string
          expect(key).toMatch(/^pdk_/)

          const body = JSON.stringify({ entity_id: product.id, direction: "up" })
          const voted = yield* halfClosed(base, "POST", "/vote", body)
          expect(statusOf(voted), voted).toBe(201)
          expect(bodyOf(voted)).toMatchObject({ entity_id: product.id, direction: "up" })
          // What it was told is what was recorded: the same vote again changes nothing.
          const again = yield* request(`${base}/vote`, { method: "POST", headers: { "content-type": "application/json" }, body })
          expect(again.status).toBe(200)

          // The key it was given works.
          const other = sampleCatalog()[1]!
          const asAgent = yield* request(`${base}/vote`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
            body: JSON.stringify({ entity_id: other.id, direction: "up" })
          })
          expect(asAgent.status).toBe(201)

          const read = yield* halfClosed(base, "GET", `/products/${product.id}`)
          expect(statusOf(read), read).toBe(200)
        })
      )
    })
  })
}
