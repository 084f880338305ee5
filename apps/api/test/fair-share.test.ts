/**
 * The process's work shared fairly between clients (packages/edge/src/clients/fairShare.ts), and MCP batches as the requests they
 * hold (packages/mcp/src/batches.ts): a client with many connections, many addresses or batches of calls gets a turn where
 * a lone client gets one, and never holds more work than the process can finish.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { CatalogStore, fromImportRecord, type ProductId } from "@productdir/domain"
import { bulkyRecord } from "@productdir/fixtures"
import { layerWithState } from "@productdir/store-memory/testing"
import { make } from "@productdir/edge/clients/fairShare"
import { BATCH_ANSWER_BYTES, MAX_BATCH_MESSAGES, NOT_RUN } from "@productdir/mcp/batches"
import { baseUrl, serverLayer } from "./harness.ts"
import { bodyOf, postJson, type Reply, request } from "./http.ts"

/** Work that records when it ran, and holds its permit until `gate` opens. */
const recorder = (order: Array<string>) => (name: string, gate?: Deferred.Deferred<void>) =>
  Effect.suspend(() => {
    order.push(name)
    return gate === undefined ? Effect.void : Deferred.await(gate)
  })

describe("fair share of the process's work", () => {
  it.effect("a lone client's request runs next, before the rest of a busy client's queue", () =>
    Effect.gen(function* () {
      const share = yield* make({ permits: 1, maxWait: Duration.minutes(1) })
      const order: Array<string> = []
      const run = recorder(order)
      const gate = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(share.run("198.51.100.1", run("busy-0", gate)))
      yield* Effect.yieldNow
      const busy = yield* Effect.forEach([1, 2, 3, 4, 5, 6], (i) =>
        Effect.forkChild(share.run("198.51.100.1", run(`busy-${i}`)), { startImmediately: true })
      )
      const lone = yield* Effect.forkChild(share.run("203.0.113.9", run("lone")), { startImmediately: true })
      expect(share.stats()).toEqual({ running: 1, waiting: 7 })
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.joinAll([first, ...busy, lone])
      // busy-1 may have been next in turn already; the lone client's comes right after it at the latest.
      expect(order.indexOf("lone")).toBeLessThanOrEqual(2)
      expect(order).toHaveLength(8)
      expect(share.stats()).toEqual({ running: 0, waiting: 0 })
    })
  )

  it.effect("a /48 of many addresses gets the turns one other network gets, not one per address", () =>
    Effect.gen(function* () {
      const share = yield* make({ permits: 1, maxWait: Duration.minutes(1) })
      const order: Array<string> = []
      const run = recorder(order)
      const gate = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(share.run("2001:db8:1:ffff::1", run("flood-start", gate)))
      yield* Effect.yieldNow
      const flood = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) => Effect.forkChild(share.run(`2001:db8:1:${i.toString(16)}::1`, run(`flood-${i}`)), { startImmediately: true })
      )
      const lone = yield* Effect.forEach([0, 1, 2], (i) =>
        Effect.forkChild(share.run("192.0.2.44", run(`lone-${i}`)), { startImmediately: true })
      )
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.joinAll([first, ...flood, ...lone])
      // Turns alternate between the two networks: the lone client's three requests are done within its first six turns.
      expect(order.indexOf("lone-2")).toBeLessThanOrEqual(7)
    })
  )

  it.effect("one client holds half the permits at most: another's request runs at once beside its work", () =>
    Effect.gen(function* () {
      const share = yield* make({ permits: 4, maxWait: Duration.minutes(1) })
      const gate = yield* Deferred.make<void>()
      const busy = yield* Effect.forEach(
        Array.from({ length: 10 }, (_, i) => i),
        (i) => Effect.forkChild(share.run(`198.51.100.${i + 1}`, Deferred.await(gate)), { startImmediately: true })
      )
      // Ten requests of one /16: two run, eight wait, two permits stay free for anyone else.
      expect(share.stats()).toEqual({ running: 2, waiting: 8 })
      const order: Array<string> = []
      const lone = yield* Effect.forkChild(
        share.run(
          "203.0.113.9",
          Effect.sync(() => order.push("lone"))
        ),
        { startImmediately: true }
      )
      yield* Fiber.join(lone)
      expect(order).toEqual(["lone"])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.joinAll(busy)
      expect(share.stats()).toEqual({ running: 0, waiting: 0 })
    })
  )

  it.effect("a request that waits past the deadline is answered Busy and leaves the queue", () =>
    Effect.gen(function* () {
      const share = yield* make({ permits: 1, maxWait: Duration.seconds(10) })
      const gate = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(share.run("198.51.100.1", Deferred.await(gate)))
      yield* Effect.yieldNow
      const waiting = yield* Effect.forkChild(Effect.flip(share.run("198.51.100.2", Effect.void)), { startImmediately: true })
      expect(share.stats().waiting).toBe(1)
      yield* TestClock.adjust("11 seconds")
      const busy = yield* Fiber.join(waiting)
      expect(busy._tag).toBe("Busy")
      expect(busy.retryAfterSeconds).toBeGreaterThan(0)
      expect(share.stats()).toEqual({ running: 1, waiting: 0 })
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      expect(share.stats()).toEqual({ running: 0, waiting: 0 })
    })
  )

  it.effect("released: a wait on something outside gives the permit to the next in turn, then takes a turn again", () =>
    Effect.gen(function* () {
      const share = yield* make({ permits: 1, maxWait: Duration.minutes(1) })
      const order: Array<string> = []
      const outside = yield* Deferred.make<void>()
      const fetching = yield* Effect.forkChild(
        share.run(
          "198.51.100.1",
          Effect.gen(function* () {
            order.push("fetch starts")
            yield* share.released(Deferred.await(outside))
            order.push("fetch done")
          })
        )
      )
      yield* Effect.yieldNow
      const other = yield* Effect.forkChild(
        share.run(
          "203.0.113.9",
          Effect.sync(() => order.push("other"))
        ),
        { startImmediately: true }
      )
      yield* Fiber.join(other)
      expect(order).toEqual(["fetch starts", "other"])
      yield* Deferred.succeed(outside, undefined)
      yield* Fiber.join(fetching)
      expect(order).toEqual(["fetch starts", "other", "fetch done"])
      expect(share.stats()).toEqual({ running: 0, waiting: 0 })
    })
  )
})

const STREAMS = { accept: "application/json, text/event-stream" }

/** A 2025-03-26 session (the revision with batches), opened from `from`: its headers. */
const batchSession = (base: string, from: string) =>
  Effect.gen(function* () {
    const opened = yield* postJson(
      `${base}/mcp`,
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "batcher", version: "1" } }
      },
      { ...STREAMS, "x-forwarded-for": from }
    )
    expect(opened.status).toBe(200)
    const headers = { ...STREAMS, "x-forwarded-for": from, "mcp-session-id": opened.headers.get("mcp-session-id")! }
    expect((yield* postJson(`${base}/mcp`, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202)
    return headers
  })

const searchCall = (id: number, q: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "search_products", arguments: { q } }
})

type Answer = { readonly id: number; readonly result?: { readonly isError?: boolean }; readonly error?: { code: number; message: string } }

const bulky = fromImportRecord(bulkyRecord(1), "5b0c1d3e-0000-4000-8000-00000000b01c" as ProductId).input

describe("MCP batches over HTTP", () => {
  const stores = layerWithState
  const server = Layer.merge(serverLayer(stores, { trustProxy: 1, concurrency: 1 }), stores)
  layer(server, { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    it.effect("a batch's calls are answered in one array, each with its id; notifications alone are accepted", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const session = yield* batchSession(base, "198.51.100.20")
        const answer = yield* postJson(
          `${base}/mcp`,
          [{ jsonrpc: "2.0", id: 1, method: "ping" }, searchCall(2, "invoice"), { jsonrpc: "2.0", id: "three", method: "tools/list" }],
          session
        )
        expect(answer.status).toBe(200)
        const replies = bodyOf<ReadonlyArray<Answer & { id: number | string }>>(answer)
        expect(replies.map((r) => r.id)).toEqual([1, 2, "three"])
        expect(replies.every((r) => r.error === undefined)).toBe(true)
        const notifications = yield* postJson(`${base}/mcp`, [{ jsonrpc: "2.0", method: "notifications/initialized" }], session)
        expect(notifications.status).toBe(202)
      })
    )

    it.effect(`a batch of more than ${MAX_BATCH_MESSAGES} messages is refused whole, and nothing runs`, () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const session = yield* batchSession(base, "198.51.100.21")
        const calls = Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, i) => searchCall(i + 1, "invoice"))
        const refused = yield* postJson(`${base}/mcp`, calls, session)
        expect(refused.status).toBe(400)
        const { error } = bodyOf<Answer>(refused)
        expect(error?.code).toBe(-32600)
        expect(error?.message).toContain(`at most ${MAX_BATCH_MESSAGES} messages`)
      })
    )

    it.effect("a batch's answers stop at their byte budget: later calls are not run, each told to come again alone", () =>
      Effect.gen(function* () {
        yield* CatalogStore.use((catalog) => catalog.upsert([bulky]))
        const base = yield* baseUrl
        const session = yield* batchSession(base, "198.51.100.22")
        const reads = Array.from({ length: 8 }, (_, i) => ({
          jsonrpc: "2.0",
          id: i + 1,
          method: "tools/call",
          params: { name: "get_product", arguments: { entity_id: bulky.id } }
        }))
        const answer = yield* postJson(`${base}/mcp`, reads, session)
        expect(answer.status).toBe(200)
        const replies = bodyOf<ReadonlyArray<Answer>>(answer)
        expect(replies.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
        const run = replies.filter((r) => r.result !== undefined)
        const skipped = replies.filter((r) => r.error?.code === NOT_RUN)
        expect(run.length).toBeGreaterThanOrEqual(1)
        expect(skipped.length).toBeGreaterThanOrEqual(1)
        expect(run.length + skipped.length).toBe(8)
        expect(skipped[0]!.error!.message).toContain("request of its own")
        // The whole answer is about the budget, plus the one answer that crossed it.
        expect(answer.text.length).toBeLessThan(BATCH_ANSWER_BYTES + (answer.text.length / run.length) * 1.5)
      })
    )

    it.effect("a client's batches on many connections are answered one at a time, and do not hold up another client's search", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const attacker = yield* batchSession(base, "10.1.1.1")
        const calls = Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => searchCall(i + 1, "invoice"))
        // 8 connections, each sending batches one after another until the other client's search is answered.
        let searching = true
        let searchStarted = false
        let answeredDuringSearch = 0
        const connections = yield* Effect.forEach(
          Array.from({ length: 8 }, () => 0),
          () =>
            Effect.forkChild(
              Effect.gen(function* () {
                const answers: Array<Reply> = []
                while (searching) {
                  const answer = yield* postJson(`${base}/mcp`, calls, attacker)
                  if (searchStarted && searching) answeredDuringSearch++
                  answers.push(answer)
                }
                return answers
              })
            )
        )
        // Wait until the attacker's batches queue for their slots: one client's batches are answered one at a time
        // (packages/mcp/src/batchSlots.ts), the one answered taking turns with everyone else's requests.
        const slots = yield* Effect.promise(async () => {
          const deadline = Date.now() + 60_000
          for (;;) {
            const metrics = await (await fetch(`${base}/metrics`)).text()
            const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(metrics)?.[1] ?? "0")
            const waiting = gauge("productdir_mcp_batches_waiting")
            if (waiting >= 3) return { waiting, running: gauge("productdir_mcp_batches_running") }
            if (Date.now() > deadline) throw new Error(`the batches never queued: ${waiting} waiting`)
            await new Promise((resolve) => setTimeout(resolve, 10))
          }
        })
        expect(slots.running).toBe(1)
        searchStarted = true
        const search = yield* request(`${base}/products?q=invoice`, { headers: { "x-forwarded-for": "192.0.2.77" } })
        searching = false
        expect(search.status).toBe(200)
        // One batch at a time, its calls taking turns with the lone client: the search did not wait for a round of the
        // eight connections' batches (on an idle machine one or two are answered meanwhile; a busy one sends it later).
        expect(answeredDuringSearch).toBeLessThan(8)
        const answers = (yield* Fiber.joinAll(connections)).flat()
        expect(answers.length).toBeGreaterThanOrEqual(8)
        expect(answers.map((a) => a.status)).toEqual(Array(answers.length).fill(200))
        for (const answer of answers) {
          const replies = bodyOf<ReadonlyArray<Answer>>(answer)
          expect(replies).toHaveLength(MAX_BATCH_MESSAGES)
          expect(replies.every((r) => r.result !== undefined && r.result.isError !== true)).toBe(true)
        }
      })
    )
  })
})
