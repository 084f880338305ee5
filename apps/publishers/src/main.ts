#!/usr/bin/env node
/**
 * productdir-publishers: the entry point and its wiring.
 *
 *   argv ─► cli (list | show | suspend | restore | take-down | bring-back | audit) ─► PublisherAdministration over the store from the environment
 *   outcome ─► exit code: 0 done, 1 no such publisher or a change its state does not allow, 2 usage or connection error
 */
import { Console, Effect } from "effect"
import { Command } from "effect/cli"
import { VERSION } from "@productdir/contract"
import { runCli } from "@productdir/runtime"
import { publishersCommand } from "./cli.ts"
import { ROLE } from "./role.ts"

runCli({
  role: ROLE,
  run: Command.run(publishersCommand, { version: VERSION }),
  known: (error) => {
    switch (error._tag) {
      case "PublisherNotFound":
        return Console.error(`productdir-publishers: ${error.message}. productdir-publishers list shows every publisher.`).pipe(
          Effect.as(1)
        )
      case "StatusUnchanged":
      case "ProductUnchanged":
        return Console.error(`productdir-publishers: ${error.message}.`).pipe(Effect.as(1))
      case "ProductNotFound":
        return Console.error(`productdir-publishers: ${error.message}.`).pipe(Effect.as(1))
      case "UsageError":
        return Console.error(`productdir-publishers: ${error.message}`).pipe(Effect.as(2))
      default:
        return undefined
    }
  }
})
