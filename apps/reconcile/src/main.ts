#!/usr/bin/env node
/**
 * productdir-reconcile: the entry point and its wiring.
 *
 *   argv ─► cli (once | --every | --cron) ─► job lock ─► reconcile (domain) over the store from the environment
 *   outcome ─► exit code: 0 done (SIGTERM/SIGINT included), 1 drift under --check, 2 usage or connection error
 */
// Each module by its own path: the package index also loads its Redis, cluster and WebSocket modules.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Layer } from "effect"
import { Command } from "effect/cli"
import { VERSION } from "@productdir/contract"
import { layerCli, storeFailureHandlers, teardown } from "@productdir/runtime"
import { reconcileCommand } from "./cli.ts"
import { ROLE } from "./role.ts"

const program = Command.run(reconcileCommand, { version: VERSION }).pipe(
  Effect.as(0),
  Effect.catchTags({
    // The summary is already printed.
    DriftFound: () => Effect.succeed(1),
    UsageError: (error) => Console.error(`productdir-reconcile: ${error.message}`).pipe(Effect.as(2)),
    ...storeFailureHandlers(ROLE, 2)
  }),
  // Usage errors: effect/cli has already printed what was wrong.
  Effect.catch(() => Effect.succeed(2)),
  Effect.provide(Layer.mergeAll(NodeServices.layer, layerCli))
)

// SIGTERM/SIGINT end a scheduled run between batches: a clean stop, exit 0.
NodeRuntime.runMain(program, { teardown: teardown(2) })
