/**
 * MCP batches cannot hold more of the process than it has: a batch's answers wait for its last call, and 64
 * batches of one address on 64 connections held 64 of them at once, up to a MiB each, and their copies: the API,
 * run as `npm start` runs it (its heap capped), died of heap exhaustion within seconds. Batches are answered a few
 * at a time, one per client network (packages/mcp/src/batchSlots.ts); the others wait their turn or are answered 503 with
 * Retry-After.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bulkyRecord } from "@productdir/fixtures"
import { testTargets } from "@productdir/store-postgres/testing"
import { NOT_RUN } from "@productdir/mcp/batches"
import { IMPORT_BIN, ROOT, run, signalGroup, start } from "./processes.ts"

const BIN = join(ROOT, "apps/api/bin/productdir-api.js")
const STREAMS = { accept: "application/json, text/event-stream", "content-type": "application/json" }
const ATTACKER = "198.51.100.64"
const CONNECTIONS = 64

type Reply = { readonly id: number; readonly result?: unknown; readonly error?: { readonly code: number } }

reportLeftOut("MCP batches of large answers", storesLeftOut())
for (const variant of testTargets()) {
  describe(`MCP batches of large answers on ${variant.name}`, { timeout: 600_000 }, () => {
    const cleanup: Array<() => Promise<void> | void> = []
    afterEach(async () => {
      for (const f of cleanup.splice(0)) await f()
    })

    it(`${CONNECTIONS} connections of batches from one address are each answered, and the API stays up`, async () => {
      const target = await variant.make()
      cleanup.push(() => target.dispose())
      const dir = mkdtempSync(join(tmpdir(), "productdir-batches-"))
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
      // Records of about 60 KB (a long summary, a dozen long features), with a character beyond Latin-1 (JavaScript then
      // holds their text two bytes a character): eight or so answers fill a batch's budget, over as many turns.
      const records = Array.from({ length: 16 }, (_, i) => {
        const bulky = bulkyRecord(i)
        return {
          ...bulky,
          name: `Mid-size Product ${i}`,
          ai_summary: `${bulky.ai_summary.slice(0, 9_000)} — its summary, at length.`,
          ai_features: bulky.ai_features.slice(0, 12),
          recommended_for: bulky.recommended_for.slice(0, 12),
          ai_optimization: { ...bulky.ai_optimization, use_cases: bulky.ai_optimization.use_cases.slice(0, 6) }
        }
      })
      writeFileSync(join(dir, "bulky.ndjson"), `${records.map((r) => JSON.stringify(r)).join("\n")}\n`)
      const imported = await run(IMPORT_BIN, [join(dir, "bulky.ndjson")], target.env)
      expect(imported.code, imported.stderr).toBe(0)
      const server = start(BIN, [], { ...target.env, TRUST_PROXY: "1" })
      cleanup.unshift(() => signalGroup(server.child, "SIGKILL"))
      const base = await server.url

      const opened = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: { ...STREAMS, "x-forwarded-for": ATTACKER },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "batcher", version: "1" } }
        })
      })
      expect(opened.status).toBe(200)
      await opened.text()
      const session = { ...STREAMS, "x-forwarded-for": ATTACKER, "mcp-session-id": opened.headers.get("mcp-session-id")! }
      const initialized = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: session,
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
      })
      expect(initialized.status).toBe(202)

      const batch = JSON.stringify(
        Array.from({ length: 32 }, (_, i) => ({
          jsonrpc: "2.0",
          id: i + 1,
          method: "tools/call",
          params: { name: "get_product", arguments: { entity_id: records[i % records.length]!.id } }
        }))
      )
      const outcomes: Array<{ status: number | string; replies?: ReadonlyArray<Reply>; retryAfter?: string | null }> = []
      for (let round = 0; round < 2; round++) {
        outcomes.push(
          ...(await Promise.all(
            Array.from({ length: CONNECTIONS }, async () => {
              try {
                const answer = await fetch(`${base}/mcp`, { method: "POST", headers: session, body: batch })
                const text = await answer.text()
                return answer.status === 200
                  ? { status: 200, replies: JSON.parse(text) as ReadonlyArray<Reply> }
                  : { status: answer.status, retryAfter: answer.headers.get("retry-after") }
              } catch (error) {
                return { status: String((error as Error).cause ?? error) }
              }
            })
          ))
        )
      }
      // Every batch answered: its calls run (the first, at least) or said not run, or the batch told to come again.
      expect(
        outcomes.filter((o) => o.status !== 200 && !(o.status === 503 && o.retryAfter !== null)).map((o) => o.status),
        server.output().slice(-2_000)
      ).toEqual([])
      const answered = outcomes.filter((o) => o.status === 200)
      expect(answered.length).toBeGreaterThan(0)
      for (const { replies } of answered) {
        expect(replies!.map((r) => r.id)).toEqual(Array.from({ length: 32 }, (_, i) => i + 1))
        expect(replies!.filter((r) => r.result !== undefined).length).toBeGreaterThan(1)
        expect(replies!.every((r) => r.result !== undefined || r.error?.code === NOT_RUN)).toBe(true)
      }
      // The API lived through it, and another address is served.
      expect((await fetch(`${base}/healthz`)).status).toBe(200)
      const search = await fetch(`${base}/products?limit=5`, { headers: { "x-forwarded-for": "192.0.2.15" } })
      expect(search.status).toBe(200)
      expect(server.child.exitCode).toBeNull()
    })
  })
}
