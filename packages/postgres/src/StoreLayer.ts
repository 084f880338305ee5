/**
 * The store chooser every app uses at its entry point (DESIGN §10, §14):
 * STORE=memory → the domain's in-memory layer; DATABASE_URL → that server;
 * otherwise embedded PGlite in DATA_DIR. Migrations run at start.
 */
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Option, type Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import type * as Migrator from "effect/sql/Migrator"
import type { SqlError } from "effect/sql/SqlError"
import { type CatalogStore, type JobLock, MemoryStore, type ProblemStore, type Settings, StoreError, type VoteLedger } from "@productdir/domain"
import { migrate } from "./migrations.ts"
import * as PgliteClient from "./PgliteClient.ts"
import * as SqlCatalogStore from "./SqlCatalogStore.ts"
import * as SqlJobLock from "./SqlJobLock.ts"
import * as SqlProblemStore from "./SqlProblemStore.ts"
import * as SqlSettings from "./SqlSettings.ts"
import * as SqlVoteLedger from "./SqlVoteLedger.ts"

export type Stores = CatalogStore | VoteLedger | ProblemStore | JobLock | Settings

export type StoreKind = "postgres" | "pglite" | "memory"

export const StoreConfig = Config.all({
  store: Config.Literals(["auto", "postgres", "pglite", "memory"], "STORE").pipe(Config.withDefault("auto" as const)),
  databaseUrl: Config.option(Config.Redacted("DATABASE_URL")),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data"))
})

/** Which store the configuration picks. */
export const storeKind = (config: { readonly store: string; readonly databaseUrl: Option.Option<unknown> }): StoreKind =>
  config.store === "auto" ? (Option.isSome(config.databaseUrl) ? "postgres" : "pglite") : config.store as StoreKind

const Migrated = Layer.effectDiscard(
  migrate.pipe(Effect.tap((ran) => ran.length > 0 ? Effect.logInfo(`migrations applied: ${ran.map(([id, name]) => `${id}_${name}`).join(", ")}`) : Effect.void))
)

const sqlServices = (ledger: SqlVoteLedger.Options) =>
  Layer.mergeAll(SqlCatalogStore.layer, SqlVoteLedger.layer(ledger), SqlProblemStore.layer, SqlSettings.layer)

/** The SQL stores over a PgClient, migrated; the client stays available beside them. The job lock is a Postgres advisory lock. */
export const layerSql = <E, R>(client: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, E, R>) =>
  Layer.mergeAll(sqlServices({ streamSnapshots: true }), SqlJobLock.layer).pipe(Layer.provide(Migrated), Layer.provideMerge(client))

/** A PostgreSQL server. */
export const layerPostgres = (url: Redacted.Redacted, options: { readonly maxConnections?: number } = {}) =>
  layerSql(PgClient.layer({
    url,
    maxConnections: options.maxConnections ?? 10,
    // Reads from many requests are pipelined on each connection (one write for many
    // statements); transactions still get a connection of their own.
    multiplex: true
  }))

/**
 * Embedded PGlite. It lives in this process, so the job lock is the
 * in-process one: no second process can open the same data directory.
 */
export const layerPglite = (options: { readonly dataDir?: string | undefined } = {}) =>
  Layer.mergeAll(sqlServices({ streamSnapshots: false }), MemoryStore.layerJobLock).pipe(Layer.provide(Migrated), Layer.provideMerge(PgliteClient.layer(options)))

/** Failures a store layer can fail to build with. */
export type StoreLayerError = Migrator.MigrationError | SqlError | StoreError

/** The store the environment asks for. */
export const layerFromConfig: Layer.Layer<Stores, StoreLayerError | Config.ConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    const config = yield* StoreConfig
    const kind = storeKind(config)
    yield* Effect.logInfo(`store: ${kind}${kind === "pglite" ? ` in ${config.dataDir}` : ""}`)
    switch (kind) {
      case "memory":
        return MemoryStore.layer as Layer.Layer<Stores, StoreLayerError>
      case "pglite":
        return layerPglite({ dataDir: config.dataDir })
      case "postgres": {
        if (Option.isNone(config.databaseUrl)) {
          return yield* new StoreError({ operation: "configure", detail: "STORE=postgres needs DATABASE_URL" })
        }
        return layerPostgres(config.databaseUrl.value)
      }
    }
  })
)
