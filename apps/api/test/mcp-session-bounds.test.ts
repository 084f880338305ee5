/**
 * MCP sessions are bounded (packages/mcp/src/sessions.ts): a client that sends initialize without end cannot
 * grow the process, and what it ends are sessions nobody uses. Over real HTTP, as a client sees it: a
 * session that ended answers 404 (and MCP clients then initialize again).
 */
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"

const VERSION = "2025-11-25"
const JSON_OR_SSE = { "content-type": "application/json", accept: "application/json, text/event-stream" }

const post = (base: string, body: object, headers: Record<string, string> = {}) =>
  Effect.promise(() => fetch(`${base}/mcp`, { method: "POST", headers: { ...JSON_OR_SSE, ...headers }, body: JSON.stringify(body) }))

/** A new session's id, after initialize and the initialized notification, as a client starts one. */
const initialize = (base: string) =>
  Effect.gen(function* () {
    const response = yield* post(base, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "bounds", version: "1" } }
    })
    yield* Effect.promise(() => response.arrayBuffer())
    expect(response.status).toBe(200)
    const id = response.headers.get("mcp-session-id")!
    const sent = yield* post(base, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionHeaders(id))
    yield* Effect.promise(() => sent.arrayBuffer())
    return id
  })

const sessionHeaders = (id: string) => ({ "mcp-session-id": id, "mcp-protocol-version": VERSION })

/** The status a session's ping gets: 200 while it lives, 404 once it ended. */
const ping = (base: string, id: string) =>
  Effect.gen(function* () {
    const response = yield* post(base, { jsonrpc: "2.0", id: 2, method: "ping" }, sessionHeaders(id))
    yield* Effect.promise(() => response.arrayBuffer())
    return response.status
  })

describe("MCP sessions are bounded", () => {
  layer(serverLayer(memoryStores(), { mcpMaxSessions: 5 }))((it) => {
    it.effect(
      "past MCP_MAX_SESSIONS a new session ends the least recently used idle one; sessions in use, or with a stream open, go on",
      () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const busy = yield* initialize(base)
          const streaming = yield* initialize(base)
          const stream = new AbortController()
          const opened = yield* Effect.promise(() =>
            fetch(`${base}/mcp`, { headers: { accept: "text/event-stream", ...sessionHeaders(streaming) }, signal: stream.signal })
          )
          expect(opened.status).toBe(200)
          const started: Array<string> = []
          for (let i = 0; i < 30; i++) {
            started.push(yield* initialize(base))
            // The busy client keeps using its session.
            expect(yield* ping(base, busy)).toBe(200)
          }
          expect(yield* ping(base, busy)).toBe(200)
          expect(yield* ping(base, streaming)).toBe(200)
          // Room for 5: the busy one, the streaming one and the last 3 started; the first 27 ended.
          const statuses = yield* Effect.forEach(started, (id) => ping(base, id))
          expect(statuses).toEqual([...Array(27).fill(404), 200, 200, 200])
          stream.abort()
        })
    )
  })

  layer(serverLayer(memoryStores(), { mcpSessionIdle: Duration.millis(200) }))((it) => {
    it.effect("a session with no request and no stream for MCP_SESSION_IDLE ends when another starts", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const idle = yield* initialize(base)
        yield* TestClock.adjust("1 second")
        const fresh = yield* initialize(base)
        expect(yield* ping(base, idle)).toBe(404)
        expect(yield* ping(base, fresh)).toBe(200)
      })
    )
  })
})
