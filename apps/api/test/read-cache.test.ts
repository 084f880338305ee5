/**
 * The read cache through real HTTP, with real processes (docs/operations.md,
 * "The read cache"): a change made through any process (a vote through another
 * API, an import, a prune, a revocation by the CLIs) is served by every API
 * within a second; after the database connections die and come back the
 * cache serves nothing stale; a miss is one load however many wait for it; the
 * byte budget holds. On PostgreSQL: two APIs, one of them behind a proxy that
 * can cut its connections. Embedded: the one API a data directory has, and
 * the CLIs beside it. Where the machine has PostgreSQL's programs: two APIs on a
 * server of the test's own, restarted for real.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sampleRecords } from "@productdir/fixtures/sample"
import { freshDatabaseUrl } from "@productdir/store-postgres/testing"
import { ConnectionProxy, PrivateServer } from "@productdir/testkit"
import { ENTRY_OVERHEAD_BYTES } from "@productdir/read-cache/ReadCache"
import { AGENTS_BIN, IMPORT_BIN, json, PUBLISHERS_BIN, run, signalGroup, startApi, type Started, vote } from "./processes.ts"

const sample = sampleRecords()
const server = process.env.DATABASE_URL

interface Record_ {
  readonly ai_summary: string
  readonly trust: { readonly trust_up: number; readonly trust_down: number }
}

const read = (base: string, id: string) => json<Record_>(`${base}/products/${id}`)

/** Polls `check` until it holds, for at most `ms`; answers how long it took (or fails with the last value). */
/**
 * Reads until `check` holds of what `probe` answers; how long that took, for the log. `promised` is how soon the
 * service says it happens (bench:api measures the freshness figure side by side with its baseline); the test waits
 * far longer, to a deadline no busy machine reaches, and checks what arrives, not how fast this machine was.
 */
const eventually = async <A>(promised: number, probe: () => Promise<A>, check: (a: A) => boolean): Promise<number> => {
  const started = Date.now()
  const deadline = Math.max(promised, 30_000)
  for (;;) {
    const value = await probe()
    if (check(value)) return Date.now() - started
    if (Date.now() - started > deadline) throw new Error(`not within ${deadline} ms; last seen: ${JSON.stringify(value)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const metric = async (base: string, name: string) => {
  const text = (await (await fetch(`${base}/metrics`)).text()).split("\n")
  return Number(text.find((line) => line.startsWith(`${name} `))?.split(" ")[1])
}

/**
 * After the reader lost its change feed: it serves the down vote cast meanwhile (within `ms`), and
 * then follows again: the next vote, cast from `address`, within a second. What a reader of the API
 * sees, whichever way the process got there (a flush, or a feed that lost nothing).
 */
const recoversAndFollows = async (options: {
  reader: string
  writer: string
  target: string
  before: Record_["trust"]
  ms: number
  address: string
}) => {
  const { reader, writer, target, before } = options
  await eventually(
    options.ms,
    () => read(reader, target),
    (r) => r.status === 200 && r.body.trust.trust_down === before.trust_down + 1
  )
  expect((await vote(writer, { entity_id: target }, { "x-forwarded-for": options.address })).status).toBe(201)
  await eventually(
    1_000,
    () => read(reader, target),
    (r) => r.body.trust.trust_up === before.trust_up + 1
  )
}

describe(`the read cache across processes (${server ? "two APIs on one PostgreSQL database" : "embedded: one API and the CLIs"})`, {
  timeout: 180_000
}, () => {
  const scope = Effect.runSync(Scope.make())
  const started: Array<Started> = []
  let env: Record<string, string> = {}
  let dir: string
  /** The API every change is checked on; `other` is where votes are cast (the same one on the embedded store). */
  let reader: string
  let other: string
  let proxy: ConnectionProxy.ConnectionProxy | undefined
  /** The vendor site of the product a publisher changes: it serves its claim's token. */
  const published = sample[8]!
  const publishedDomain = new URL(published.trust_signals?.website ?? published.ai_optimization.seeded_url).hostname
  let token = ""
  const site = createServer((_, res) => res.writeHead(200, { "content-type": "text/plain" }).end(token))

  beforeAll(async () => {
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
    dir = mkdtempSync(join(tmpdir(), "productdir-cache-"))
    // Limits and the crowd defense off: these tests count every vote they cast.
    const settings = {
      SEED: "sample",
      VOTE_RATE_PER_VOTER: "0",
      VOTE_RATE_PER_ADDRESS: "0",
      ANONYMOUS_VOTES_PER_NETWORK: "off",
      CROWD_DEFENSE: "off",
      TRUST_PROXY: "1",
      PUBLISHER_TEST_SITES: `${publishedDomain}=127.0.0.1:${(site.address() as AddressInfo).port}`
    }
    if (server) {
      const { url } = await Effect.runPromise(Scope.provide(freshDatabaseUrl(server), scope))
      env = { ...settings, DATABASE_URL: url }
      const target = new URL(url)
      proxy = await Effect.runPromise(
        Scope.provide(
          ConnectionProxy.make({ host: target.hostname, port: Number(target.port) }, { database: target.pathname.slice(1) }),
          scope
        )
      )
      const writer = startApi(env)
      started.push(writer)
      other = await writer.url
      // The reader reaches the database through the proxy, which the restart test cuts.
      const behind = startApi({ ...env, DATABASE_URL: proxy.url, STORE_CONNECT_TIMEOUT: "5" })
      started.push(behind)
      reader = await behind.url
    } else {
      env = { ...settings, DATA_DIR: join(dir, "data") }
      const api = startApi(env)
      started.push(api)
      reader = await api.url
      other = reader
    }
  })

  afterAll(async () => {
    site.close()
    for (const s of started) signalGroup(s.child, "SIGKILL")
    await Promise.all(started.map((s) => s.exited))
    await Effect.runPromise(Scope.close(scope, Exit.void))
    rmSync(dir, { recursive: true, force: true })
  })

  it("a vote cast through one process is served by the other, 20 times over (how soon: bench:api's freshness figure)", async () => {
    const target = sample[0]!.id!
    await read(reader, target) // cached now
    const delays: Array<number> = []
    for (let i = 0; i < 20; i++) {
      const before = (await read(reader, target)).body.trust.trust_up
      const cast = await vote(other, { entity_id: target }, { "x-forwarded-for": `198.51.100.${i + 1}` })
      expect(cast.status).toBe(201)
      delays.push(
        await eventually(
          1_000,
          () => read(reader, target),
          (r) => r.body.trust.trust_up === before + 1
        )
      )
    }
    console.info(`votes served by the other process after ${delays.join(", ")} ms`)
    expect(await metric(reader, "productdir_read_cache_hits_total")).toBeGreaterThan(0)
  })

  it("a publisher's change through one process is served by every process (how soon: within a second, as votes)", async () => {
    const before = await read(reader, published.id!)
    const claim = await json<{ token: string; verify_endpoint: string }>(`${other}/publishers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ domain: publishedDomain })
    })
    expect(claim.status).toBe(201)
    token = claim.body.token
    const verified = await json<{ api_key: string }>(`${other}${claim.body.verify_endpoint}`, { method: "POST" })
    expect(verified.status).toBe(200)
    const etag = (await fetch(`${other}/products/${published.id}`)).headers.get("etag")!
    const changed = await json<{ version: number }>(`${other}/products/${published.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", authorization: `Bearer ${verified.body.api_key}`, "if-match": etag },
      body: JSON.stringify({ ai_summary: "Rewritten by its publisher, served everywhere." })
    })
    expect(changed.status).toBe(200)
    const delay = await eventually(
      1_000,
      () => read(reader, published.id!),
      (r) => r.body.ai_summary === "Rewritten by its publisher, served everywhere."
    )
    console.info(`a publisher's change served by the other process after ${delay} ms`)
    expect(before.body.ai_summary).not.toBe("Rewritten by its publisher, served everywhere.")
  })

  it("an import, a prune and a revocation by the CLIs reach every API", async () => {
    const [changed, pruned] = [sample[1]!, sample[2]!]
    await read(reader, changed.id!)
    await read(reader, pruned.id!)
    const file = join(dir, "catalog.ndjson")
    const summary = `Rewritten by the import. ${changed.ai_summary}`
    writeFileSync(
      file,
      `${sample
        .map((r, i) => JSON.stringify(i === 1 ? { ...r, ai_summary: summary } : r))
        .filter((_, i) => i !== 2)
        .join("\n")}\n`
    )
    const imported = await run(IMPORT_BIN, [file, "--prune"], env)
    expect(imported.code, imported.stderr).toBe(0)
    await eventually(
      1_000,
      () => read(reader, changed.id!),
      (r) => r.status === 200 && r.body.ai_summary === summary
    )
    await eventually(
      1_000,
      () => read(reader, pruned.id!),
      (r) => r.status === 410
    )

    // A revoked agent's vote leaves the counters every API serves.
    const target = sample[3]!.id!
    const registered = await json<{ agent_id: string; api_key: string }>(`${other}/agents`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "cache-test" })
    })
    const before = (await read(reader, target)).body.trust
    expect((await vote(other, { entity_id: target }, { authorization: `Bearer ${registered.body.api_key}` })).status).toBe(201)
    await eventually(
      1_000,
      () => read(reader, target),
      (r) => r.body.trust.trust_up === before.trust_up + 1
    )
    const revoked = await run(AGENTS_BIN, ["revoke", registered.body.agent_id], env)
    expect(revoked.code, revoked.stderr).toBe(0)
    await eventually(
      1_000,
      () => read(reader, target),
      (r) => r.body.trust.trust_up === before.trust_up
    )
  })

  it("an operator's takedown by productdir-publishers reaches every API: 410 with its reason; brought back, 200", async () => {
    const target = sample[9]!.id!
    expect((await read(reader, target)).status).toBe(200) // cached now
    const down = await run(PUBLISHERS_BIN, ["take-down", target, "--reason", "Listing impersonates its vendor"], env)
    expect(down.code, down.stderr).toBe(0)
    await eventually(
      1_000,
      () => json<{ detail?: string }>(`${reader}/products/${target}`),
      (r) => r.status === 410 && (r.body.detail ?? "").includes("Listing impersonates its vendor")
    )
    const back = await run(PUBLISHERS_BIN, ["bring-back", target, "--reason", "The vendor proved it is theirs"], env)
    expect(back.code, back.stderr).toBe(0)
    await eventually(
      1_000,
      () => read(reader, target),
      (r) => r.status === 200
    )
  })

  it("a read the cache held is loaded again when its product changes: the next request is a hit, and fresh", async () => {
    const target = sample[6]!.id!
    expect((await read(reader, target)).status).toBe(200)
    const refreshes = await metric(reader, "productdir_read_cache_refreshes_total")
    const cast = await vote(reader, { entity_id: target }, { "x-forwarded-for": "203.0.113.77" })
    expect(cast.status).toBe(201)
    // Loaded again in the background, before anyone asks: the first read after it is a hit, with the vote in it.
    await eventually(
      1_000,
      () => metric(reader, "productdir_read_cache_refreshes_total"),
      (n) => n > refreshes
    )
    await new Promise((r) => setTimeout(r, 300))
    const misses = await metric(reader, "productdir_read_cache_misses_total")
    const again = await read(reader, target)
    expect(again.body.trust.trust_up).toBe(cast.body.trust.trust_up)
    expect(await metric(reader, "productdir_read_cache_misses_total")).toBe(misses)
  })

  it("a miss is one load however many requests wait for it", async () => {
    const target = sample[4]!.id!
    const misses = await metric(reader, "productdir_read_cache_misses_total")
    const replies = await Promise.all(Array.from({ length: 40 }, () => read(reader, `${target}`)))
    expect(replies.every((r) => r.status === 200)).toBe(true)
    expect(new Set(replies.map((r) => r.headers.get("etag"))).size).toBe(1)
    expect(await metric(reader, "productdir_read_cache_misses_total")).toBe(misses + 1)
  })

  if (server) {
    it("when the database connections die, the cache serves nothing stale once they are back", async () => {
      const target = sample[5]!.id!
      const before = (await read(reader, target)).body.trust
      // The reader loses every connection and cannot get new ones, as in a restart...
      await Effect.runPromise(proxy!.pause)
      await Effect.runPromise(proxy!.cut)
      // ...while the other API changes the product.
      expect((await vote(other, { entity_id: target, direction: "down" }, { "x-forwarded-for": "203.0.113.200" })).status).toBe(201)
      await new Promise((r) => setTimeout(r, 600))
      await Effect.runPromise(proxy!.resume)
      // The feed comes back, drops everything it may have missed, and the reader serves the change;
      // and it keeps following: the next change arrives within a second again.
      await recoversAndFollows({ reader, writer: other, target, before, ms: 3_000, address: "203.0.113.201" })
    })
  }
})

describe("the read cache's byte budget", { timeout: 120_000 }, () => {
  it("holds: entries are evicted, least recently used first, and reads stay right", async () => {
    const dir = mkdtempSync(join(tmpdir(), "productdir-budget-"))
    const api = startApi({ DATA_DIR: join(dir, "data"), SEED: "sample", CACHE_BYTES: "20000" })
    try {
      const base = await api.url
      for (const record of sample.slice(0, 30)) {
        const reply = await read(base, record.id!)
        expect(reply.status).toBe(200)
        expect(reply.body.ai_summary).toBe(record.ai_summary)
      }
      expect(await metric(base, "productdir_read_cache_budget_bytes")).toBe(20_000)
      const bytes = await metric(base, "productdir_read_cache_bytes")
      expect(bytes).toBeGreaterThan(0)
      expect(bytes).toBeLessThanOrEqual(20_000)
      expect(await metric(base, "productdir_read_cache_evictions_total")).toBeGreaterThan(0)
      // The most recent read is still held: reading it again is a hit.
      const hits = await metric(base, "productdir_read_cache_hits_total")
      await read(base, sample[29]!.id!)
      expect(await metric(base, "productdir_read_cache_hits_total")).toBe(hits + 1)
      // Small bodies (a first page of problems: a few hundred bytes) are bounded in number too: each entry's
      // bookkeeping counts, so 44 of them cannot be held in 20,000 bytes.
      for (const record of sample) expect((await json(`${base}/entities/${record.id}/problems`)).status).toBe(200)
      const entries = await metric(base, "productdir_read_cache_entries")
      expect(await metric(base, "productdir_read_cache_bytes")).toBeLessThanOrEqual(20_000)
      expect(entries).toBeGreaterThan(0)
      expect(entries).toBeLessThanOrEqual(Math.floor(20_000 / ENTRY_OVERHEAD_BYTES))
    } finally {
      signalGroup(api.child, "SIGKILL")
      await api.exited
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

/** Asks until `check` holds, for at most `ms` (a client retrying while a server comes back). */
const until = async <A>(ms: number, probe: () => Promise<A>, check: (a: A) => boolean): Promise<A> => {
  const started = Date.now()
  for (;;) {
    const value = await probe()
    if (check(value) || Date.now() - started > ms) return value
    await new Promise((r) => setTimeout(r, 50))
  }
}

if (PrivateServer.available()) {
  describe("the read cache across a real restart of the database server", { timeout: 180_000 }, () => {
    const scope = Effect.runSync(Scope.make())
    const started: Array<Started> = []
    let server: PrivateServer.PrivateServer
    let writer: string
    let reader: string

    beforeAll(async () => {
      server = await Effect.runPromise(Scope.provide(PrivateServer.make, scope))
      const env = {
        DATABASE_URL: server.url(),
        SEED: "sample",
        VOTE_RATE_PER_VOTER: "0",
        VOTE_RATE_PER_ADDRESS: "0",
        TRUST_PROXY: "1"
      }
      // One after the other: the first migrates and seeds the empty database.
      const first = startApi(env)
      started.push(first)
      writer = await first.url
      const second = startApi(env)
      started.push(second)
      reader = await second.url
    })

    afterAll(async () => {
      for (const s of started) signalGroup(s.child, "SIGKILL")
      await Promise.all(started.map((s) => s.exited))
      await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    it("the change feed comes back after the restart: what changed meanwhile is served, and what changes next", async () => {
      const target = sample[7]!.id!
      const before = (await read(reader, target)).body.trust
      await Effect.runPromise(server.restart)
      // The writer's connections died with the server: a vote may be refused (503) until its pool reconnects.
      const cast = await until(
        10_000,
        () => vote(writer, { entity_id: target, direction: "down" }, { "x-forwarded-for": "203.0.113.150" }),
        (r) => r.status === 201
      )
      expect(cast.status).toBe(201)
      await recoversAndFollows({ reader, writer, target, before, ms: 2_000, address: "203.0.113.151" })
    })
  })
}
