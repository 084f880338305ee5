#!/usr/bin/env node
/**
 * productdir-import: the entry point and its wiring.
 *
 *   argv ─► cli (import | export) ─► store from the environment (STORE / DATABASE_URL / DATA_DIR)
 *   outcome ─► exit code: 0 all loaded, 1 records rejected, 2 usage, file or connection error
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { Command } from "effect/cli"
import { cliExitCode, layerCli, teardown } from "@productdir/runtime"
import { cli } from "./cli.ts"

const program = Command.run(cli, { version: "0.1.0" }).pipe(
  Effect.as(0),
  Effect.catch(cliExitCode("productdir-import", {
    RecordsRejected: { code: 1, print: false }, // the summary and each rejection are already printed
    InputError: { code: 2, print: true }
  })),
  Effect.provide(Layer.mergeAll(NodeServices.layer, layerCli))
)

NodeRuntime.runMain(program, { teardown: teardown(2) })
