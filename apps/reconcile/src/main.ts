#!/usr/bin/env node
/**
 * productdir-reconcile: the entry point and its wiring.
 *
 *   argv ─► cli (once | --every | --cron) ─► job lock ─► integrity pass, then reconcile, over the store from the environment
 *   outcome ─► exit code: 0 done (a schedule stopped by SIGTERM/SIGINT included), 1 something to change under --check,
 *              2 usage or connection error, 130 a one-off pass stopped by SIGTERM/SIGINT before it finished
 */
import { Console, Effect } from "effect"
import { Command } from "effect/cli"
import { VERSION } from "@productdir/contract"
import { runCli } from "@productdir/runtime"
import { reconcileCommand } from "./cli.ts"
import { ROLE } from "./role.ts"

runCli({
  role: ROLE,
  run: Command.run(reconcileCommand, { version: VERSION }),
  known: (error) => {
    switch (error._tag) {
      // The summary is already printed.
      case "WouldChange":
        return Effect.succeed(1)
      case "UsageError":
        return Console.error(`productdir-reconcile: ${error.message}`).pipe(Effect.as(2))
      default:
        return undefined
    }
  }
})
