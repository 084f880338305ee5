#!/usr/bin/env node
/**
 * productdir-import: the entry point and its wiring.
 *
 *   argv ─► cli (import | export) ─► store from the environment (STORE / DATABASE_URL / DATA_DIR)
 *   outcome ─► exit code: 0 all loaded, 1 records rejected, 2 usage, file or connection error
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Console, Effect, Exit, Layer, Runtime } from "effect"
import { Command } from "effect/cli"
import { cli } from "./cli.ts"
import { LoggingLive } from "./logging.ts"

const VERSION = "0.1.0"

/** One line that says what went wrong and what to do, then the exit code. */
const exitCodeOf = (error: unknown): Effect.Effect<number> => {
  const tag = (error as { _tag?: string })._tag
  if (tag === "RecordsRejected") return Effect.succeed(1)
  if (tag === "InputError") return Console.error(`productdir-import: ${(error as { message: string }).message}`).pipe(Effect.as(2))
  if (tag === "StoreError" || tag === "SqlError" || tag === "MigrationError" || tag === "ConfigError") {
    const detail = (error as { message?: string }).message ?? tag
    return Console.error(
      `productdir-import: cannot use the store (${detail}). Check DATABASE_URL, or unset it to use the embedded store in DATA_DIR.`
    ).pipe(Effect.as(2))
  }
  // Usage errors: effect/cli has already printed what was wrong and the help.
  return Effect.succeed(2)
}

const program = Command.run(cli, { version: VERSION }).pipe(
  Effect.as(0),
  Effect.catch(exitCodeOf),
  Effect.provide(Layer.mergeAll(NodeServices.layer, LoggingLive))
)

const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isSuccess(exit) && typeof exit.value === "number"
    ? onExit(exit.value)
    : Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)
    ? onExit(2)
    : Runtime.defaultTeardown(exit, onExit)

NodeRuntime.runMain(program, { teardown })
