#!/usr/bin/env node
/**
 * productdir-import: the entry point and its wiring.
 *
 *   argv ─► cli (import | export) ─► store from the environment (STORE / DATABASE_URL / DATA_DIR)
 *   outcome ─► exit code: 0 all loaded, 1 records rejected, 2 usage, file or connection error
 */
// Each module by its own path: the package index also loads its Redis, cluster and WebSocket modules.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Layer } from "effect"
import { Command } from "effect/cli"
import { layerCli, storeFailureHandlers, teardown } from "@productdir/runtime"
import { VERSION } from "@productdir/contract"
import { cli } from "./cli.ts"
import { ROLE } from "./role.ts"

const program = Command.run(cli, { version: VERSION }).pipe(
  Effect.as(0),
  Effect.catchTags({
    // The summary and each rejection are already printed.
    RecordsRejected: () => Effect.succeed(1),
    InputError: (error) => Console.error(`productdir-import: ${error.message}`).pipe(Effect.as(2)),
    ...storeFailureHandlers(ROLE, 2)
  }),
  // Usage errors: effect/cli has already printed what was wrong.
  Effect.catch(() => Effect.succeed(2)),
  Effect.provide(Layer.mergeAll(NodeServices.layer, layerCli))
)

NodeRuntime.runMain(program, { teardown: teardown(2) })
