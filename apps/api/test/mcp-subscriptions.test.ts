/**
 * MCP resource subscriptions across API processes, with the official SDK
 * client over real HTTP: an agent subscribed on one process hears of a change
 * made through another (the change feed that keeps every read cache fresh).
 * Two APIs on one PostgreSQL database: DATABASE_URL's, else a server of the
 * test's own where the machine has PostgreSQL's programs. Otherwise the
 * embedded store, where the one API's data directory is changed by the import
 * CLI, another process.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sampleRecords } from "@productdir/fixtures/sample"
import { freshDatabaseUrl } from "@productdir/store-postgres/testing"
import { PrivateServer } from "@productdir/testkit"
import { IMPORT_BIN, run, signalGroup, startApi, type Started, vote } from "./processes.ts"

const sample = sampleRecords()
const databaseUrl = process.env.DATABASE_URL
const twoApis = databaseUrl !== undefined || PrivateServer.available()

/** An SDK client of `base`/mcp that records the URIs of the resource updates it is told of, with when each came. */
const subscriber = async (base: string) => {
  const client = new Client({ name: "subscriptions-test", version: "1.0.0" })
  const seen: Array<{ readonly uri: string; readonly at: number }> = []
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    seen.push({ uri: notification.params.uri, at: Date.now() })
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
  return { client, seen }
}

/** Waits for the update of `uri` after index `from` (generous deadline: the machine may be busy); answers when it came. */
const updateOf = async (seen: ReadonlyArray<{ uri: string; at: number }>, uri: string, from: number) => {
  const deadline = Date.now() + 15_000
  for (;;) {
    const hit = seen.slice(from).find((s) => s.uri === uri)
    if (hit !== undefined) return hit.at
    if (Date.now() > deadline) throw new Error(`no update of ${uri} within 15 s; seen: ${JSON.stringify(seen)}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe(`MCP subscriptions across processes (${twoApis ? "two APIs on one PostgreSQL database" : "embedded: one API and the import CLI"})`, {
  timeout: 180_000
}, () => {
  const scope = Effect.runSync(Scope.make())
  const started: Array<Started> = []
  let dir: string
  let env: Record<string, string> = {}
  /** Where the agent subscribes, and where the changes are made. */
  let subscribed: string
  let writer: string | undefined

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "productdir-mcp-"))
    const settings = { SEED: "sample", VOTE_RATE_PER_VOTER: "0", VOTE_RATE_PER_ADDRESS: "0", CROWD_DEFENSE: "off", TRUST_PROXY: "1" }
    if (twoApis) {
      const url =
        databaseUrl === undefined
          ? (await Effect.runPromise(Scope.provide(PrivateServer.make, scope))).url()
          : (await Effect.runPromise(Scope.provide(freshDatabaseUrl(databaseUrl), scope))).url
      env = { ...settings, ANONYMOUS_VOTES_PER_NETWORK: "off", DATABASE_URL: url }
      // One after the other: the first migrates and seeds the empty database.
      const first = startApi(env)
      started.push(first)
      subscribed = await first.url
      const second = startApi(env)
      started.push(second)
      writer = await second.url
    } else {
      env = { ...settings, ANONYMOUS_VOTES_PER_NETWORK: "off", DATA_DIR: join(dir, "data") }
      const api = startApi(env)
      started.push(api)
      subscribed = await api.url
    }
  })

  afterAll(async () => {
    for (const s of started) signalGroup(s.child, "SIGKILL")
    await Promise.all(started.map((s) => s.exited))
    await Effect.runPromise(Scope.close(scope, Exit.void))
    rmSync(dir, { recursive: true, force: true })
  })

  /** Changes product `index` through the other process: a vote on the second API, or an import beside the embedded one. */
  const change = async (index: number, round: number) => {
    const record = sample[index]!
    if (writer !== undefined) {
      const cast = await vote(writer, { entity_id: record.id }, { "x-forwarded-for": `198.51.100.${round}` })
      expect(cast.status).toBe(201)
      return
    }
    const file = join(dir, `change-${round}.ndjson`)
    writeFileSync(file, `${JSON.stringify({ ...record, ai_summary: `Changed in round ${round}. ${record.ai_summary}` })}\n`)
    const imported = await run(IMPORT_BIN, [file], env)
    expect(imported.code, imported.stderr).toBe(0)
  }

  it("an agent subscribed on one process hears of changes made through another, until it unsubscribes", async () => {
    const { client, seen } = await subscriber(subscribed)
    try {
      const [watched, other] = [sample[30]!, sample[31]!]
      const watchedUri = `productdir://products/${watched.id}`
      const otherUri = `productdir://products/${other.id}`
      await client.subscribeResource({ uri: watchedUri })
      await client.subscribeResource({ uri: otherUri })
      const delays: Array<number> = []
      for (let round = 1; round <= 5; round++) {
        const from = seen.length
        const changed = Date.now()
        await change(30, round)
        delays.push((await updateOf(seen, watchedUri, from)) - changed)
      }
      console.info(`notification after a change on another process: ${delays.join(", ")} ms`)

      // Unsubscribed: the next change of that product is not told; the other subscription's, made after it, is.
      await client.unsubscribeResource({ uri: watchedUri })
      const from = seen.length
      await change(30, 6)
      await change(31, 7)
      await updateOf(seen, otherUri, from)
      expect(seen.slice(from).map((s) => s.uri)).toEqual([otherUri])
    } finally {
      await client.close()
    }
  })
})
