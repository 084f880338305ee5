#!/usr/bin/env node
/**
 * productdir-reconcile: the entry point and its wiring.
 *
 *   argv ─► cli (once | --every | --cron) ─► job lock ─► reconcile (domain) over the store from the environment
 *   outcome ─► exit code: 0 done (SIGTERM/SIGINT included), 1 drift under --check, 2 usage or connection error
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { Command } from "effect/cli"
import { cliExitCode, layerCli, teardown } from "@productdir/runtime"
import { reconcileCommand } from "./cli.ts"

const program = Command.run(reconcileCommand, { version: "0.1.0" }).pipe(
  Effect.as(0),
  Effect.catch(cliExitCode("productdir-reconcile", {
    DriftFound: { code: 1, print: false }, // the summary is already printed
    UsageError: { code: 2, print: true }
  })),
  Effect.provide(Layer.mergeAll(NodeServices.layer, layerCli))
)

// SIGTERM/SIGINT end a scheduled run between batches: a clean stop, exit 0.
NodeRuntime.runMain(program, { teardown: teardown(2) })
