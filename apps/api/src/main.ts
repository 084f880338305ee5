#!/usr/bin/env node
/**
 * productdir API: the entry point, and its wiring diagram.
 *
 *   environment ─► ApiConfig, store choice (STORE / DATABASE_URL / DATA_DIR)
 *   store ─► migrations ─► sample seed (embedded stores, first start)
 *   HttpLive (routes, docs, logging, limits) on NodeServerLive (HOST:PORT)
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { layerFromConfig, StoreConfig, storeKind } from "@productdir/postgres"
import { layerServer as LoggingLive, teardown } from "@productdir/runtime"
import * as ApiConfig from "./ApiConfig.ts"
import { seedSampleIfEmpty } from "./seed.ts"
import { HttpLive, NodeServerLive } from "./server.ts"

const SeedLive = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* ApiConfig.ApiConfig
  const kind = storeKind(yield* StoreConfig)
  yield* seedSampleIfEmpty(config.seed, kind)
}))

const AnnounceLive = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const base = HttpServer.formatAddress(server.address)
  yield* Effect.logInfo(`productdir API listening on ${base}  (docs: ${base}/docs, agents: ${base}/llms.txt)`)
}))

const StoresLive = Layer.provideMerge(SeedLive, layerFromConfig)

const MainLive = Layer.mergeAll(HttpLive, AnnounceLive).pipe(
  Layer.provide(NodeServerLive),
  Layer.provide(StoresLive),
  Layer.provide(ApiConfig.layerFromEnv),
  Layer.provide(LoggingLive)
)

// SIGTERM/SIGINT interrupt the server: after the graceful drain that is a clean stop, exit 0.
NodeRuntime.runMain(Layer.launch(MainLive), { teardown: teardown(1) })
