/**
 * The PostgreSQL store as layers: on a server, or on PGlite embedded in this
 * process (in memory, or in a data directory this process owns or joins).
 * Migrations run when a layer is built.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, type Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import type * as Migrator from "effect/sql/Migrator"
import type { SqlError } from "effect/sql/SqlError"
import type { ProductChanges, RateLimits, StoreError } from "@productdir/domain"
import { layerJobLock as MemoryJobLock, layerRateLimits as MemoryRateLimits } from "@productdir/store-memory"
import { migrate } from "./migrations/index.ts"
import { installRoutines, ROUTINES } from "./routines/index.ts"
import * as ChangeFeed from "./ChangeFeed.ts"
import { describeServer } from "./connect.ts"
import * as FileJobLock from "./embedded/FileJobLock.ts"
import * as PgliteClient from "./PgliteClient.ts"
import * as ReadReplicas from "./ReadReplicas.ts"
import * as SqlAgentRegistry from "./SqlAgentRegistry.ts"
import * as SqlCatalogStore from "./SqlCatalogStore.ts"
import * as SqlIntegrityLedger from "./SqlIntegrityLedger.ts"
import * as SqlJobLock from "./SqlJobLock.ts"
import * as SqlNonces from "./SqlNonces.ts"
import * as SqlProblemStore from "./SqlProblemStore.ts"
import * as SqlPublisherStore from "./SqlPublisherStore.ts"
import * as SqlAuditTrail from "./SqlAuditTrail.ts"
import * as SqlRateLimits from "./SqlRateLimits.ts"
import * as SqlSettings from "./SqlSettings.ts"
import * as SqlVoteLedger from "./SqlVoteLedger.ts"

/** The schema brought up to date, then the routines that changed installed (routines/install.ts). */
const Migrated = Layer.effectDiscard(
  Effect.gen(function* () {
    const ran = yield* migrate
    if (ran.length > 0) yield* Effect.logInfo(`migrations applied: ${ran.map(([id, name]) => `${id}_${name}`).join(", ")}`)
    const { installed, rewritten } = yield* installRoutines(ROUTINES)
    if (installed.length > 0) yield* Effect.logInfo(`routines installed: ${installed.join(", ")}`)
    for (const [rewrite, rows] of Object.entries(rewritten)) yield* Effect.logInfo(`${rewrite} rewritten: ${rows} rows`)
  })
)

/**
 * The change feed and where reads go: all to the layer's client (named `name` for /readyz), or to
 * replicas once they have replayed what the feed told (the feed then keeps the WAL positions).
 */
type Reads = Layer.Layer<ReadReplicas.ReadRouter | ProductChanges | ChangeFeed.Announcer, SqlError, SqlClient.SqlClient>

const primaryReads = (name: string | undefined): Reads => Layer.merge(ReadReplicas.layerPrimary(name), ChangeFeed.layer)

const replicaReads = (name: string, urls: ReadonlyArray<Redacted.Redacted>, options: ReadReplicas.ReplicaOptions): Reads =>
  ReadReplicas.layer(name, urls, options).pipe(Layer.provideMerge(ChangeFeed.layerTracking))

/**
 * The SQL stores, sharing one change feed (what they commit, they announce), one
 * read router and one set of rate-limit buckets (`limits`: in the database, or in
 * this process).
 */
const sqlServices = <E, R>(ledger: SqlVoteLedger.Options, limits: Layer.Layer<RateLimits, E, R>, reads: Reads) =>
  Layer.mergeAll(
    SqlCatalogStore.layer,
    SqlVoteLedger.layer(ledger),
    SqlProblemStore.layer,
    SqlPublisherStore.layer,
    SqlAuditTrail.layer,
    SqlAgentRegistry.layer,
    SqlSettings.layer,
    SqlNonces.layer,
    SqlIntegrityLedger.layer
  ).pipe(Layer.provideMerge(reads), Layer.provideMerge(limits))

/**
 * The SQL stores over a PgClient, migrated; the client stays available beside them. The job lock is a
 * Postgres advisory lock, and the rate limits live in the database: every process on it shares them.
 */
export const layerSql = <E, R>(
  client: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, E, R>,
  reads: Reads = primaryReads("postgres")
) =>
  Layer.mergeAll(sqlServices({ streamSnapshots: true, limitsInDatabase: true }, SqlRateLimits.layer, reads), SqlJobLock.layer).pipe(
    Layer.provide(Migrated),
    Layer.provideMerge(client)
  )

export interface PostgresOptions {
  readonly maxConnections?: number
  /**
   * Pipeline the statements of many callers on each connection (default): one write for many reads,
   * what a server answering many small requests wants. A transaction then waits for the connection
   * it was handed to be free, even while another connection could be opened; a batch writer whose
   * transactions should run side by side (the import) asks for a connection per caller instead.
   */
  readonly multiplex?: boolean
  /**
   * Let the planner use parallel workers. Off by default, for a server: a parallel plan spends other
   * cores on one request. A batch job that reads the whole ledger in one statement wants them (the
   * reconciliation): without them the planner reads a large ledger's votes in index order instead of
   * hashing a scan, many times slower.
   */
  readonly parallelQueries?: boolean
  /**
   * Streaming replicas of this server (DATABASE_READ_URL) for the reads that miss the API's cache
   * (ReadReplicas.ts). Only the API asks: the import and the jobs write, and read what they write.
   */
  readonly readUrls?: ReadonlyArray<Redacted.Redacted>
}

/** A PostgreSQL server, and its read replicas when `options.readUrls` names any. */
export const layerPostgres = (url: Redacted.Redacted, options: PostgresOptions = {}) => {
  const maxConnections = options.maxConnections ?? 10
  // No JIT: it compiles a plan whose estimated cost is high, and the planner's guess for the
  // import's slug lookup (a range per name, millions of rows guessed, none found) makes each batch
  // of a large catalog pay far more in compiling than the statement costs. For a server, many small
  // statements at once, not one big one: starting parallel workers makes a search for a distinctive
  // word several times slower (docs/database.md, "Plans at 1,000,000 products").
  const startupParameters: Record<string, string> =
    options.parallelQueries === true ? { jit: "off" } : { max_parallel_workers_per_gather: "0", jit: "off" }
  const primary = describeServer(url)
  const readUrls = options.readUrls ?? []
  return layerSql(
    PgClient.layer({ url, maxConnections, multiplex: options.multiplex ?? true, startupParameters }),
    readUrls.length === 0 ? primaryReads(primary) : replicaReads(primary, readUrls, { maxConnections, startupParameters })
  )
}

/**
 * Embedded PGlite: in memory for this process alone, or in a data directory that
 * this process owns or joins (PgliteClient.ts). The processes on one directory
 * share one backend session, so the job lock is a file lock per job. Only one API
 * serves a directory, so its rate limits stay in its process.
 */
export const layerPglite = (
  options: {
    readonly dataDir?: string | undefined
    readonly role?: PgliteClient.Role
    /** Free bytes the data directory's disk keeps in reserve: writes are refused below (embedded/DiskGuard.ts). */
    readonly reserve?: number | undefined
  } = {}
) =>
  options.dataDir === undefined
    ? Layer.mergeAll(
        sqlServices({ streamSnapshots: false, limitsInDatabase: false }, MemoryRateLimits, primaryReads(undefined)),
        MemoryJobLock
      ).pipe(Layer.provide(Migrated), Layer.provideMerge(PgliteClient.layerInMemory()))
    : Layer.mergeAll(
        sqlServices({ streamSnapshots: false, limitsInDatabase: false }, MemoryRateLimits, primaryReads(undefined)),
        FileJobLock.layer(options.dataDir)
      ).pipe(
        Layer.provide(Migrated),
        Layer.provideMerge(
          PgliteClient.layerDataDir(
            options.dataDir,
            options.role ?? { tool: "a productdir process", share: false },
            options.reserve === undefined ? {} : { reserve: options.reserve }
          )
        )
      )

/** Failures a store layer can fail to build with. */
export type StoreLayerError = Migrator.MigrationError | SqlError | StoreError | PgliteClient.DataDirOwned | PgliteClient.DataDirUnusable
