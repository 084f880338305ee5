/**
 * Signed requests from a hostile client (issue: one client took a process down):
 * real API processes, started as users start them (the launcher with its capped
 * heap), a real key directory on loopback, real HTTP. A client may cause no
 * more key-directory fetches than the votes its address may cast, nothing it
 * sends grows the process's memory without bound, a directory that trickles its
 * answer is cut off at one deadline, and a nonce is refused on every process.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { sampleRecords } from "@productdir/fixtures/sample"
import { freshDatabaseUrl } from "@productdir/store-postgres/testing"
import { json, ROOT, signalGroup, start, type Started } from "./processes.ts"
import { type AgentKey, makeAgentKey, serveKeyDirectory, signedHeaders } from "./signedAgent.ts"

const sample = sampleRecords()
const server = process.env.DATABASE_URL
const LAUNCHER = resolve(ROOT, "apps/api/bin/productdir-api.js")

type Directory = { readonly origin: string; readonly fetches: () => number }

describe("signed requests from a hostile client", { timeout: 240_000 }, () => {
  const scope = Effect.runSync(Scope.make())
  const started: Array<Started> = []
  const cleanup: Array<() => void> = []
  let env: Record<string, string> = {}

  /** The API as `npm start` runs it: the launcher, with its capped heap. */
  const api = (extra: Record<string, string> = {}) => {
    const process_ = start(LAUNCHER, [], { ...env, ...extra })
    started.push(process_)
    return process_
  }

  beforeAll(async () => {
    // Each test's client has an address of its own (X-Forwarded-For from one trusted proxy): the
    // vote budgets of a PostgreSQL database outlive the processes of a test.
    const base = { SIGNED_AGENTS_HTTP_HOSTS: "127.0.0.1", SEED: "sample", VOTE_RATE_PER_VOTER: "0", TRUST_PROXY: "1" }
    if (server) {
      const { url } = await Effect.runPromise(Scope.provide(freshDatabaseUrl(server), scope))
      env = { ...base, DATABASE_URL: url }
    } else {
      const dir = mkdtempSync(join(tmpdir(), "productdir-signed-"))
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
      env = { ...base, DATA_DIR: join(dir, "data") }
    }
  })

  afterEach(async () => {
    for (const s of started.splice(0)) signalGroup(s.child, "SIGKILL")
  })

  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    for (const f of cleanup) f()
  })

  const directoryOf = (keys: ReadonlyArray<AgentKey>, options: Parameters<typeof serveKeyDirectory>[1] = {}) =>
    Effect.runPromise(Scope.provide(serveKeyDirectory(keys, options), scope)) as Promise<Directory>

  let client = 0
  /**
   * A client address of its own for the test that calls it, in a /16 of its own: key directory fetches
   * are budgeted per network too (IPv4 /24 and /16), and one test's fetches within the same minute
   * must not spend the next one's.
   */
  const newClient = () => `10.${++client}.0.1`

  const signedVote = (base: string, from: string, key: AgentKey, directory: string, extra: { nonce?: string } = {}) => {
    const body = JSON.stringify({ entity_id: sample[3]!.id, direction: "up" })
    const signed = signedHeaders({
      key,
      directory,
      url: `${base}/vote`,
      body,
      ...(extra.nonce === undefined ? {} : { nonce: extra.nonce })
    })
    return fetch(`${base}/vote`, { method: "POST", headers: { ...signed, "x-forwarded-for": from }, body }).then(async (r) => ({
      status: r.status,
      text: await r.text(),
      retryAfter: r.headers.get("retry-after")
    }))
  }

  it("valid signatures naming a new key directory each time, from one address: the process lives, and fetches stay within the vote budget", async () => {
    const key = makeAgentKey()
    const directory = await directoryOf([key], { anyPath: true })
    // Every new directory is a new agent: nothing but the vote budget stands in the way.
    const apiProcess = api({ VOTE_RATE_PER_ADDRESS: "60", AGENT_REGISTRATIONS_PER_ADDRESS: "0" })
    const base = await apiProcess.url
    const statuses = new Map<number | string, number>()
    const from = newClient()
    const pad = "x".repeat(300)
    for (let round = 0; round < 12; round++) {
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          signedVote(base, from, key, `${directory.origin}/keys/${round}-${i}-${pad}`, { nonce: `${round}-${i}-${"n".repeat(100)}` }).then(
            (r) => r.status,
            (e: Error) => `error: ${e.message}`
          )
        )
      )
      for (const status of replies) statuses.set(status, (statuses.get(status) ?? 0) + 1)
    }
    // Every request was answered, never a crash, never a 5xx: counted, or over the budget.
    expect(
      [...statuses.keys()].every((s) => s === 201 || s === 200 || s === 429),
      JSON.stringify([...statuses])
    ).toBe(true)
    expect(statuses.get(429) ?? 0).toBeGreaterThan(400)
    // The address may cast 60 votes a minute: no more fetches than that (a little refill while the test runs).
    expect(directory.fetches()).toBeLessThanOrEqual(70)
    expect((await json(`${base}/healthz`)).status).toBe(200)
    expect(apiProcess.child.exitCode).toBe(null)
  })

  it("new key directories named from 100 /64s of one /48: the /48 makes at most its fetch budget, and nobody else is held back", async () => {
    const key = makeAgentKey()
    const directory = await directoryOf([key], { anyPath: true })
    // Every /64 in a /56 of its own, so that only the /48's budget (40 a minute by default) binds.
    const base = await api({ VOTE_RATE_PER_ADDRESS: "60", AGENT_REGISTRATIONS_PER_ADDRESS: "0" }).url
    const site = `2001:db8:${(0x100 + client++).toString(16)}`
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => signedVote(base, `${site}:${(i + 1).toString(16)}00::1`, key, `${directory.origin}/keys/${i}`))
    )
    const fetched = directory.fetches()
    // Before, each /64 had a budget of its own and the /48 had the directory fetch all 100 URLs.
    expect(fetched).toBeGreaterThanOrEqual(40)
    expect(fetched).toBeLessThanOrEqual(45)
    const limited = replies.filter((r) => r.status === 429)
    expect(limited.length).toBe(100 - fetched)
    expect(limited[0]!.text).toContain("Key directory fetch rate limit reached for your network (IPv6 /48")
    expect(Number(limited[0]!.retryAfter)).toBeGreaterThanOrEqual(1)
    // A directory the service has fetched costs nothing: the same site still votes through it.
    const cached = replies.findIndex((r) => r.status === 201 || r.status === 200)
    const again = await signedVote(base, `${site}:ff00::1`, key, `${directory.origin}/keys/${cached}`)
    expect([200, 201]).toContain(again.status)
    // Another site names a new directory and is served at once.
    const other = await signedVote(base, `2001:db8:${(0x100 + client++).toString(16)}::1`, key, `${directory.origin}/keys/other`)
    expect([200, 201]).toContain(other.status)
    expect(directory.fetches()).toBe(fetched + 1)
  })

  it("oversized signature inputs are refused before anything is fetched or kept, each with the limit it broke", async () => {
    const key = makeAgentKey()
    const directory = await directoryOf([key], { anyPath: true })
    const apiProcess = api({ VOTE_RATE_PER_ADDRESS: "0", AGENT_REGISTRATIONS_PER_ADDRESS: "0" })
    const base = await apiProcess.url
    const attempts: Record<string, { readonly directory: string; readonly nonce?: string; readonly says: RegExp }> = {
      "a nonce of 4,000 characters": {
        directory: directory.origin,
        nonce: "n".repeat(4_000),
        says: /signature-input header is longer than/
      },
      "a nonce of 200 characters": { directory: directory.origin, nonce: "n".repeat(200), says: /nonce must be a string of at most 128/ },
      "a key directory URL of 1,000 characters": {
        directory: `${directory.origin}/${"k".repeat(1_000)}`,
        says: /longer than 512 characters/
      },
      "a key directory URL of 4,000 characters": {
        directory: `${directory.origin}/${"k".repeat(4_000)}`,
        says: /signature-agent header is longer than/
      }
    }
    const from = newClient()
    for (const [name, attempt] of Object.entries(attempts)) {
      for (let i = 0; i < 50; i++) {
        const reply = await signedVote(
          base,
          from,
          key,
          attempt.directory,
          attempt.nonce === undefined ? {} : { nonce: `${i}${attempt.nonce}` }
        )
        expect(reply.status, name).toBe(401)
        expect(reply.text, name).toMatch(attempt.says)
      }
    }
    expect(directory.fetches()).toBe(0)
    expect((await json(`${base}/healthz`)).status).toBe(200)
    expect(apiProcess.child.exitCode).toBe(null)
  })

  it("bad signatures naming new directories: one fetch per vote the address may cast, then 429; a failing directory is asked once", async () => {
    const key = makeAgentKey()
    const directory = await directoryOf([key], { anyPath: true })
    const base = await api({ VOTE_RATE_PER_ADDRESS: "10" }).url
    const replies = []
    const from = newClient()
    for (let i = 0; i < 30; i++) {
      // Signed by a key the directory does not hold: every signature fails.
      replies.push(await signedVote(base, from, makeAgentKey(), `${directory.origin}/other-${i}`))
    }
    const refused = replies.filter((r) => r.status === 401).length
    const limited = replies.filter((r) => r.status === 429)
    expect(refused + limited.length).toBe(30)
    expect(refused).toBeLessThanOrEqual(11)
    expect(directory.fetches()).toBe(refused)
    expect(limited.every((r) => Number(r.retryAfter) >= 1)).toBe(true)
    expect(limited[0]!.text).toContain("rate limit")
  })

  it("a directory that fails is not asked again for every request", async () => {
    const key = makeAgentKey()
    const directory = await directoryOf([key])
    const base = await api({ VOTE_RATE_PER_ADDRESS: "100" }).url
    // The well-known path answers; this one is a 404.
    const failing = `${directory.origin}/missing-keys`
    const from = newClient()
    for (let i = 0; i < 10; i++) {
      const reply = await signedVote(base, from, key, failing)
      expect(reply.status).toBe(401)
      expect(reply.text).toContain("404")
    }
    expect(directory.fetches()).toBe(1)
  })

  it("a directory that sends one byte a second is cut off at one deadline, not held for minutes", async () => {
    const key = makeAgentKey()
    const directory = await directoryOf([key], { trickle: true })
    const base = await api().url
    // At a byte a second the directory's answer takes minutes; had the API waited for it, the key would
    // have been found and the vote taken. The refusal names the deadline that ended the fetch.
    const reply = await signedVote(base, newClient(), key, directory.origin)
    expect(reply.status).toBe(401)
    expect(reply.text).toContain("did not answer in full within 2 s")
  })

  it("a nonce is used once across processes: a replay to another API process (or the same one restarted) is refused", async () => {
    const key = makeAgentKey()
    const directory = await directoryOf([key])
    // Both processes stand behind one public name, as behind a load balancer: the very same request
    // verifies on either, so only the nonce can refuse the second one.
    const publicUrl = { PUBLIC_URL: "http://productdir.test" }
    const first = api(publicUrl)
    const firstBase = await first.url
    const body = JSON.stringify({ entity_id: sample[5]!.id, direction: "up" })
    const headers = signedHeaders({
      key,
      directory: directory.origin,
      url: `${firstBase}/vote`,
      authority: "productdir.test",
      body,
      nonce: "replay-me",
      lifetime: 300
    })
    const accepted = await fetch(`${firstBase}/vote`, { method: "POST", headers, body })
    expect(accepted.status).toBe(201)
    let secondBase: string
    if (server) {
      secondBase = await api(publicUrl).url
    } else {
      // One API owns an embedded data directory: the other process is the same API, restarted.
      signalGroup(first.child, "SIGTERM")
      await first.exited
      secondBase = await api(publicUrl).url
    }
    const replayed = await fetch(`${secondBase}/vote`, { method: "POST", headers, body })
    expect(replayed.status).toBe(401)
    expect(await replayed.text()).toContain("replay")
  })
})
