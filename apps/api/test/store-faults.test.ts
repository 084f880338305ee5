/**
 * A store that fails under a request is a 503 with Retry-After, never a 500,
 * and no acknowledged vote is lost: the API's database connections are killed
 * over and over in the middle of a vote storm. On a server the backends are
 * terminated (pg_terminate_backend); on the embedded store, the API reaches the
 * database through the socket another process serves it on, and a proxy on the
 * way cuts every connection.
 */
import { PgClient } from "@effect/sql-pg"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Redacted, Schedule, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ledgerKey, VoteLedger } from "@productdir/domain"
import { VoterIdentity } from "@productdir/usecases"
import { layerPglite, layerPostgres, layerSql, SHARING_TOOL } from "@productdir/store-postgres"
import { embeddedSocketPath, freshDatabaseUrl } from "@productdir/store-postgres/testing"
import { ConnectionProxy } from "@productdir/testkit"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { baseUrl, serverLayer } from "./harness.ts"
import { bodyOf, postJson, type ProblemBody } from "./http.ts"

/** What the test does to the API's database, over a connection of its own. */
class Faults extends Context.Service<
  Faults,
  {
    /** Kills every database connection of the API. */
    readonly kill: Effect.Effect<void>
    /** The voters in the ledger whose name starts with `prefix`. */
    readonly recordedVoters: (prefix: string) => Effect.Effect<ReadonlySet<string>, unknown>
  }
>()("test/Faults") {}

const recordedVoters = (sql: SqlClient.SqlClient) => (prefix: string) =>
  Effect.map(sql<{ voter: string }>`SELECT voter FROM votes WHERE voter LIKE ${`${prefix}%`}`, (rows) => new Set(rows.map((r) => r.voter)))

/** A database of its own on the server; the API connects directly, the faults terminate its backends. */
const onServer = (server: string) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const { url } = yield* freshDatabaseUrl(server)
      const admin = yield* Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
      const sql = Context.get(admin, SqlClient.SqlClient)
      const kill = sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`
      return Layer.merge(
        Layer.succeed(Faults, { kill: Effect.ignore(kill), recordedVoters: recordedVoters(sql) }),
        layerPostgres(Redacted.make(url))
      )
    })
  )

/** An embedded database owned and shared by this test; the API connects through a proxy the faults cut. */
const embedded = Layer.unwrap(
  Effect.gen(function* () {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => join(mkdtempSync(join(tmpdir(), "productdir-faults-")), "data")),
      (dir) => Effect.sync(() => rmSync(join(dir, ".."), { recursive: true, force: true }))
    )
    const owner = yield* Layer.build(layerPglite({ dataDir: dir, role: { tool: SHARING_TOOL, share: true } }))
    const sql = Context.get(owner, SqlClient.SqlClient)
    const proxy = yield* ConnectionProxy.make({ path: embeddedSocketPath(dir) }, { database: "postgres" })
    return Layer.merge(
      Layer.succeed(Faults, { kill: Effect.asVoid(proxy.cut), recordedVoters: recordedVoters(sql) }),
      layerSql(PgClient.layer({ url: Redacted.make(proxy.url), maxConnections: 4 }))
    )
  })
)

/** The server's address-hash key, so the test can name the ledger key of each address. */
const SECRET = "store-faults-secret"
const addressOf = (i: number) => `198.18.${i >> 8}.${i & 255}`

const server = process.env.DATABASE_URL
const sample = sampleCatalog()
const rigs = [{ name: "pglite", rig: embedded }, ...(server ? [{ name: "postgres", rig: onServer(server) }] : [])]

for (const { name, rig } of rigs) {
  describe(`store failures during requests (${name})`, () => {
    const settings = { trustProxy: 1, voterSecret: Option.some(Redacted.make(SECRET)) }
    const identity = VoterIdentity.layer(Option.some(Redacted.make(SECRET))).pipe(Layer.provide(rig))
    layer(Layer.mergeAll(Layer.provideMerge(serverLayer(rig, settings), rig), identity), {
      timeout: "120 seconds",
      excludeTestServices: true
    })((it) => {
      it.effect(
        "connections killed mid-vote: every answer is 2xx or 503 problem with Retry-After, every acknowledged vote is in the ledger",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const faults = yield* Faults
            const killer = yield* Effect.forkChild(Effect.forever(Effect.andThen(faults.kill, Effect.sleep("40 millis"))))
            const targets = sample.slice(0, 5)
            const replies = yield* Effect.forEach(
              Array.from({ length: 400 }, (_, i) => i),
              (i) =>
                Effect.map(postJson(`${base}/vote`, { entity_id: targets[i % 5]!.id }, { "x-forwarded-for": addressOf(i) }), (reply) => ({
                  i,
                  reply
                })),
              { concurrency: 32 }
            )
            yield* Fiber.interrupt(killer)

            const statuses = new Set(replies.map(({ reply }) => reply.status))
            expect([...statuses].filter((s) => ![200, 201, 503].includes(s))).toEqual([])
            const unavailable = replies.filter(({ reply }) => reply.status === 503)
            expect(unavailable.length).toBeGreaterThan(0)
            for (const { reply } of unavailable) {
              expect(reply.headers.get("content-type")).toMatch(/^application\/problem\+json/)
              expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0)
              expect(bodyOf<ProblemBody>(reply).status).toBe(503)
            }
            // Each request came from an address of its own: its ledger key is that address's keyed hash.
            const voterIdentity = yield* VoterIdentity.VoterIdentity
            const acknowledged = replies
              .filter(({ reply }) => reply.status === 201)
              .map(({ i }) => ledgerKey(voterIdentity.caster({ address: addressOf(i) }).voter))
            const recorded = yield* faults.recordedVoters("ip:")
            expect(acknowledged.filter((v) => !recorded.has(v))).toEqual([])
            // Counters agree with the ledger: nothing was half-written. The read goes through the API's
            // pool, which may still hold a connection the last cut closed a moment ago: that read is a
            // StoreError a client would retry, so the test retries it too.
            const readSnapshots = Effect.flatMap(
              VoteLedger.use((l) => Effect.succeed(l.snapshots(100))),
              Stream.runCollect
            )
            const snapshots = (yield* Effect.retry(readSnapshots, { times: 10, schedule: Schedule.spaced("100 millis") })).flat()
            for (const s of snapshots) expect(s.stored).toEqual({ up: s.seed.up + s.ledger.up, down: s.seed.down + s.ledger.down })
          }),
        120_000
      )
    })
  })
}
