/**
 * The store every entry point picks from its environment (docs/operations.md, README "Configuration"):
 * STORE=memory → the in-memory adapter; DATABASE_URL → that PostgreSQL server
 * (waited for at start); otherwise PGlite embedded in DATA_DIR. How the process
 * uses an embedded directory it finds (own and share it, or join its owner) is
 * its role.
 */
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { Config, ConfigProvider, Effect, Layer, Option, Redacted, Schema } from "effect"
import { type Stores, StoreError } from "@productdir/domain"
import * as MemoryStore from "@productdir/store-memory"
import {
  armDiskGuard,
  awaitServer,
  DEFAULT_RESERVE,
  ConnectConfig,
  describeServer,
  layerPglite,
  layerPostgres,
  type PgliteClient,
  type PostgresOptions,
  type StoreLayerError,
  schemaState
} from "@productdir/store-postgres"

export type StoreKind = "postgres" | "pglite" | "memory"

/** What is wrong with `url` as a PostgreSQL server's address (named by its scheme and host, never its password), or undefined. */
const notPostgresUrl = (url: string): string | undefined => {
  try {
    const parsed = new URL(url)
    return parsed.protocol === "postgres:" || parsed.protocol === "postgresql:"
      ? undefined
      : `${parsed.protocol}//${parsed.host} is not a postgres:// URL`
  } catch {
    return "is not a URL (postgres://user@host:5432/database)"
  }
}

/**
 * DATABASE_URL: a postgres:// URL. Anything else is said at start: waiting for it to be reachable cannot fix it.
 * Set to nothing (`DATABASE_URL= npm start`), it is unset.
 */
const DatabaseUrlConfig = Config.option(Config.Redacted("DATABASE_URL")).pipe(
  Config.mapEffect((found) => {
    if (Option.isNone(found) || Redacted.value(found.value).trim() === "") return Effect.succeed(Option.none<Redacted.Redacted>())
    const wrong = notPostgresUrl(Redacted.value(found.value))
    return wrong === undefined
      ? Effect.succeed(found)
      : Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message: `DATABASE_URL ${wrong}` })))
  })
)

export const StoreConfig = Config.all({
  store: Config.Literals(["auto", "postgres", "pglite", "memory"], "STORE").pipe(Config.withDefault("auto" as const)),
  databaseUrl: DatabaseUrlConfig,
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data")),
  /** DATA_DIR_RESERVE: MiB the data directory's disk keeps free; writes are refused below (store-postgres DiskGuard.ts). */
  dataDirReserve: Config.schema(Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)), "DATA_DIR_RESERVE").pipe(
    Config.map((mib) => mib * 1024 * 1024),
    Config.withDefault(DEFAULT_RESERVE)
  )
})

/**
 * DATABASE_READ_URL: streaming replicas of DATABASE_URL's server, comma-separated, for the API's reads
 * (docs/operations.md, "Replicas"). Each must be a postgres:// URL; a wrong one stops the start, named
 * by its place and host, never its password.
 */
export const ReadReplicasConfig: Config.Config<ReadonlyArray<Redacted.Redacted>> = Config.Redacted("DATABASE_READ_URL").pipe(
  Config.mapEffect((text) => {
    const urls = Redacted.value(text)
      .split(",")
      .map((url) => url.trim())
      .filter((url) => url !== "")
    const wrong = urls.flatMap((url, i) => {
      const why = notPostgresUrl(url)
      return why === undefined ? [] : [`#${i + 1} ${why}`]
    })
    return wrong.length === 0
      ? Effect.succeed(urls.map((url) => Redacted.make(url)))
      : Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message: `DATABASE_READ_URL: ${wrong.join("; ")}` })))
  }),
  Config.withDefault([] as ReadonlyArray<Redacted.Redacted>)
)

/** Which store the configuration picks. */
export const storeKind = (config: { readonly store: string; readonly databaseUrl: Option.Option<unknown> }): StoreKind =>
  config.store === "auto" ? (Option.isSome(config.databaseUrl) ? "postgres" : "pglite") : (config.store as StoreKind)

/**
 * The store the environment asks for, as `role`; `server` tunes a PostgreSQL server's connections.
 * `readReplicas`: the process reads from DATABASE_READ_URL's replicas (the API; the import and the
 * jobs write, and read what they write, on the primary).
 */
export const layerFromConfig = (
  role: PgliteClient.Role,
  server: PostgresOptions = {},
  options: { readonly readReplicas?: boolean } = {}
): Layer.Layer<Stores, StoreLayerError | Config.ConfigError> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const config = yield* StoreConfig
      const kind = storeKind(config)
      const readUrls = options.readReplicas === true ? yield* ReadReplicasConfig : []
      yield* Effect.logInfo(`store: ${kind}${kind === "pglite" ? ` in ${config.dataDir}` : ""}`)
      if (readUrls.length > 0 && kind !== "postgres") {
        yield* Effect.logWarning("DATABASE_READ_URL is ignored: replicas serve reads of a PostgreSQL server (DATABASE_URL)")
      }
      switch (kind) {
        case "memory":
          return MemoryStore.layer
        case "pglite": {
          const embedded = layerPglite({ dataDir: config.dataDir, role, reserve: config.dataDirReserve })
          // A command's writes come once it has started: its disk guard is armed at once. The API arms its own once it
          // listens, its settings written (apps/api main.ts).
          return role.share ? embedded : Layer.provideMerge(Layer.effectDiscard(armDiskGuard), embedded)
        }
        case "postgres": {
          if (Option.isNone(config.databaseUrl)) {
            return yield* new StoreError({ operation: "configure", detail: "STORE=postgres needs DATABASE_URL" })
          }
          yield* awaitServer(config.databaseUrl.value, yield* ConnectConfig)
          // Replicas are not waited for: one that is down is skipped until it answers (ReadReplicas.ts).
          if (readUrls.length > 0) yield* Effect.logInfo(`reads also from replicas: ${readUrls.map(describeServer).join(", ")}`)
          return layerPostgres(config.databaseUrl.value, readUrls.length > 0 ? { ...server, readUrls } : server)
        }
      }
    })
  )

/** A schema this version would change, refused by a command that changes nothing (`why`: what to do instead). */
const wouldChange = (
  operation: string,
  url: Redacted.Redacted,
  state: { readonly migrations: ReadonlyArray<string>; readonly routines: ReadonlyArray<string> },
  why: string
) =>
  new StoreError({
    operation,
    detail: `PostgreSQL at ${describeServer(url)} has a schema this version would change (${[
      ...state.migrations.map((m) => `migration ${m}`),
      ...state.routines.map((r) => `routine ${r}`)
    ].join(", ")}), and ${why}`
  })

/**
 * The store for a run that must write nothing (`productdir-import --dry-run`): building the SQL store migrates
 * its schema and installs its routines, so it is built only over a schema this version finds current. A server
 * with no productdir schema, or an embedded data directory that does not exist yet, is checked as the empty
 * catalog it is (in memory: nothing is created); a schema this version would change is refused, saying so.
 */
export const layerForDryRun = (
  role: PgliteClient.Role,
  server: PostgresOptions = {}
): Layer.Layer<Stores, StoreLayerError | Config.ConfigError> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const config = yield* StoreConfig
      const kind = storeKind(config)
      const empty = (where: string) =>
        Effect.as(
          Effect.logWarning(`${where} holds no catalog yet: the dry run checks against an empty one, and creates nothing`),
          MemoryStore.layer
        )
      if (kind === "pglite" && !existsSync(config.dataDir)) return yield* empty(`DATA_DIR ${config.dataDir}`)
      if (kind === "postgres" && Option.isSome(config.databaseUrl)) {
        const url = config.databaseUrl.value
        yield* awaitServer(url, yield* ConnectConfig)
        const state = yield* schemaState(url)
        if (state._tag === "Empty") return yield* empty(`PostgreSQL at ${describeServer(url)}`)
        if (state._tag === "Behind") {
          return yield* wouldChange(
            "dry run",
            url,
            state,
            "a dry run changes nothing: upgrade it first (start the API, or import without --dry-run), then run the dry run again"
          )
        }
      }
      return layerFromConfig(role, server)
    })
  )

/**
 * The store of a tool that works on a catalog that is there already (productdir-reconcile, productdir-agents,
 * productdir-import export): a DATA_DIR that holds no database, or a server database without the productdir
 * schema, is refused, saying so, rather than created, so a typo in DATA_DIR or DATABASE_URL is not reported as
 * a healthy empty catalog with a new schema left behind in the wrong database. `readOnly` (a check, a listing)
 * also refuses a schema this version would change: it changes nothing, migrations included.
 */
export const layerForCatalog = (
  role: PgliteClient.Role,
  options: { readonly readOnly: boolean },
  server: PostgresOptions = {}
): Layer.Layer<Stores, StoreLayerError | Config.ConfigError> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const config = yield* StoreConfig
      const kind = storeKind(config)
      const none = (where: string) =>
        new StoreError({
          operation: "find the catalog",
          detail: `${where} holds no productdir catalog (nothing was created): point ${kind === "pglite" ? "DATA_DIR" : "DATABASE_URL"} at the catalog, or start the API there first`
        })
      if (kind === "pglite" && !existsSync(join(config.dataDir, "PG_VERSION"))) return yield* none(`DATA_DIR ${resolve(config.dataDir)}`)
      if (kind === "postgres" && Option.isSome(config.databaseUrl)) {
        const url = config.databaseUrl.value
        yield* awaitServer(url, yield* ConnectConfig)
        const state = yield* schemaState(url)
        if (state._tag === "Empty") return yield* none(`PostgreSQL at ${describeServer(url)}`)
        if (state._tag === "Behind" && options.readOnly) {
          return yield* wouldChange(
            "find the catalog",
            url,
            state,
            "this command changes nothing: upgrade it first (start the API), then run it again"
          )
        }
      }
      return layerFromConfig(role, server)
    })
  )
