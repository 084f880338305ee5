/**
 * The store every entry point picks from its environment (docs/operations.md, README "Configuration"):
 * STORE=memory → the in-memory adapter; DATABASE_URL → that PostgreSQL server
 * (waited for at start); otherwise PGlite embedded in DATA_DIR. How the process
 * uses an embedded directory it finds (own and share it, or join its owner) is
 * its role.
 */
import { Config, Effect, Layer, Option } from "effect"
import { type Stores, StoreError } from "@productdir/domain"
import * as MemoryStore from "@productdir/store-memory"
import {
  awaitServer,
  ConnectConfig,
  layerPglite,
  layerPostgres,
  type PgliteClient,
  type PostgresOptions,
  type StoreLayerError
} from "@productdir/store-postgres"

export type StoreKind = "postgres" | "pglite" | "memory"

export const StoreConfig = Config.all({
  store: Config.Literals(["auto", "postgres", "pglite", "memory"], "STORE").pipe(Config.withDefault("auto" as const)),
  databaseUrl: Config.option(Config.Redacted("DATABASE_URL")),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data"))
})

/** Which store the configuration picks. */
export const storeKind = (config: { readonly store: string; readonly databaseUrl: Option.Option<unknown> }): StoreKind =>
  config.store === "auto" ? (Option.isSome(config.databaseUrl) ? "postgres" : "pglite") : (config.store as StoreKind)

/** The store the environment asks for, as `role`; `server` tunes a PostgreSQL server's connections. */
export const layerFromConfig = (
  role: PgliteClient.Role,
  server: PostgresOptions = {}
): Layer.Layer<Stores, StoreLayerError | Config.ConfigError> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const config = yield* StoreConfig
      const kind = storeKind(config)
      yield* Effect.logInfo(`store: ${kind}${kind === "pglite" ? ` in ${config.dataDir}` : ""}`)
      switch (kind) {
        case "memory":
          return MemoryStore.layer
        case "pglite":
          return layerPglite({ dataDir: config.dataDir, role })
        case "postgres": {
          if (Option.isNone(config.databaseUrl)) {
            return yield* new StoreError({ operation: "configure", detail: "STORE=postgres needs DATABASE_URL" })
          }
          yield* awaitServer(config.databaseUrl.value, yield* ConnectConfig)
          return layerPostgres(config.databaseUrl.value, server)
        }
      }
    })
  )
