#!/usr/bin/env node
/**
 * productdir-reconcile: the entry point and its wiring.
 *
 *   argv ─► cli (once | --every | --cron) ─► job lock ─► reconcile (domain) over the store from the environment
 *   outcome ─► exit code: 0 done (SIGTERM/SIGINT included), 1 drift under --check, 2 usage or connection error
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Console, Effect, Exit, Layer, Runtime } from "effect"
import { Command } from "effect/cli"
import { reconcileCommand } from "./cli.ts"
import { LoggingLive } from "./logging.ts"

const exitCodeOf = (error: unknown): Effect.Effect<number> => {
  const tag = (error as { _tag?: string })._tag
  const message = (error as { message?: string }).message ?? String(tag)
  if (tag === "DriftFound") return Effect.succeed(1)
  if (tag === "UsageError") return Console.error(`productdir-reconcile: ${message}`).pipe(Effect.as(2))
  if (tag === "StoreError" || tag === "SqlError" || tag === "MigrationError" || tag === "ConfigError") {
    return Console.error(
      `productdir-reconcile: cannot use the store (${message}). Check DATABASE_URL, or unset it to use the embedded store in DATA_DIR.`
    ).pipe(Effect.as(2))
  }
  return Effect.succeed(2) // usage errors: effect/cli has printed them
}

const program = Command.run(reconcileCommand, { version: "0.1.0" }).pipe(
  Effect.as(0),
  Effect.catch(exitCodeOf),
  Effect.provide(Layer.mergeAll(NodeServices.layer, LoggingLive))
)

// SIGTERM/SIGINT end a scheduled run between batches: a clean stop, exit 0.
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isSuccess(exit) && typeof exit.value === "number"
    ? onExit(exit.value)
    : Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)
    ? onExit(0)
    : onExit(2)

NodeRuntime.runMain(program, { teardown })
