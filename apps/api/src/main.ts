#!/usr/bin/env node
/**
 * productdir API: the entry point, and its wiring diagram.
 *
 *   environment ─► ApiConfig ─► the port is free ─► store choice (STORE / DATABASE_URL / DATA_DIR; DATABASE_READ_URL's replicas for reads)
 *   store ─► migrations ─► sample seed (embedded stores, first start)
 *   HttpLive (routes, docs, limits) on NodeServerLive (HOST:PORT, timeouts, connection caps, the front door:
 *   request ids, the access log, the read cache)
 *   SIGTERM ─► DrainOnShutdown (readiness off, keep-alive closed) ─► server closes ─► store closes
 *            └► DeadlineOnSignal: the process exits by SHUTDOWN_GRACE + ½ s, closed or not
 */
// Each module by its own path: the package index also loads its Redis, cluster and WebSocket modules.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Duration, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import {
  layerFromConfig,
  layerServer as LoggingLive,
  StoreConfig,
  storeFailureHandlers,
  stopWithNpm,
  storeKind,
  teardown
} from "@productdir/runtime"
import { armDiskGuard, type PgliteClient, SHARING_TOOL } from "@productdir/store-postgres"
import { VERSION } from "@productdir/contract"
import * as ApiConfig from "./config.ts"
import { commandLineAnswer } from "./commandLine.ts"
import { listenable, listenFailureText } from "./startFailures.ts"
import { seedSampleIfEmpty } from "./seed.ts"
import { DrainOnShutdown } from "@productdir/http/drainOnShutdown"
import { Lifecycle } from "@productdir/edge/lifecycle"
import { HttpLive, NodeServerLive } from "./server.ts"

const SeedLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* ApiConfig.ApiConfig
    const kind = storeKind(yield* StoreConfig)
    yield* seedSampleIfEmpty(config.seed, kind)
  })
)

const AnnounceLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    const base = HttpServer.formatAddress(server.address)
    // Started, its settings written: from now on an embedded store's writes stop while its disk is low.
    yield* armDiskGuard
    yield* Effect.logInfo(`productdir API listening on ${base}  (docs: ${base}/docs, agents: ${base}/llms.txt)`)
  })
)

/** The API owns an embedded data directory and serves it to the CLIs on a local socket. */
const ROLE: PgliteClient.Role = { tool: SHARING_TOOL, share: true }

// The API reads from DATABASE_READ_URL's replicas too, when it names any (docs/operations.md, "Replicas").
const StoresLive = Layer.provideMerge(SeedLive, layerFromConfig(ROLE, {}, { readReplicas: true }))

/** A taken port is said before the store is opened (and, embedded, made and seeded). */
const PortFreeLive = Layer.effectDiscard(Effect.flatMap(ApiConfig.ApiConfig, (config) => listenable(config.port, config.host)))

/**
 * SIGTERM ends the process within its grace, whatever it waits for: the drain takes at most SHUTDOWN_GRACE, and
 * a store that does not close (an embedded database whose disk filled stops for good) is not waited for past it.
 * What was acknowledged is on disk already; the process says why it did not stop cleanly, and exits 1.
 */
const DeadlineOnSignalLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* ApiConfig.ApiConfig
    const deadline = Duration.toMillis(config.shutdownGrace) + 500
    const arm = () => {
      setTimeout(() => {
        process.stderr.write(
          `${ROLE.tool}: did not stop within SHUTDOWN_GRACE (${Duration.format(config.shutdownGrace)}) and half a second: the store did not close; exiting\n`
        )
        process.exit(1)
      }, deadline).unref()
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        process.once("SIGTERM", arm)
        process.once("SIGINT", arm)
      }),
      () =>
        Effect.sync(() => {
          process.off("SIGTERM", arm)
          process.off("SIGINT", arm)
        })
    )
  })
)

// DrainOnShutdown is built after the server serves, so on SIGTERM it runs first: readiness
// fails and keep-alive connections close while the server still answers.
const MainLive = Layer.mergeAll(DrainOnShutdown, AnnounceLive).pipe(
  Layer.provideMerge(HttpLive),
  Layer.provide(Layer.provideMerge(NodeServerLive, Lifecycle.layer)),
  Layer.provide(StoresLive.pipe(Layer.provide(PortFreeLive))),
  Layer.provide(DeadlineOnSignalLive),
  Layer.provide(ApiConfig.layerFromEnv),
  Layer.provide(LoggingLive)
)

const said = (line: string) => Console.error(`${ROLE.tool}: ${line}`).pipe(Effect.as(1))

const program = Layer.launch(MainLive).pipe(
  Effect.catchTags({
    ...storeFailureHandlers(ROLE, 1),
    // Another API owns the data directory: a usage error, not a failure of this one.
    DataDirOwned: storeFailureHandlers(ROLE, 2).DataDirOwned,
    // A port taken, a HOST that is not this machine's: what to change, in one line.
    ServeError: (error) => said(listenFailureText(error.cause, "PORT")),
    MetricsPortUnavailable: (error) => said(listenFailureText(error.cause, "METRICS_PORT"))
  })
)

// The API takes no arguments (its settings are environment variables): it answers --help and --version, and
// refuses anything else rather than start a server the caller did not ask for.
const args = process.argv.slice(2)
const asked = commandLineAnswer(args, VERSION)
if (asked !== undefined) {
  ;(asked.code === 0 ? process.stdout : process.stderr).write(asked.text)
  process.exit(asked.code)
}

// SIGTERM/SIGINT interrupt the server: after the graceful drain that is a clean stop, exit 0. So does the end
// of the npm that ran it (`npm start` killed outright), rather than a server left running under init.
stopWithNpm()
NodeRuntime.runMain(program, { teardown: teardown(1) })
