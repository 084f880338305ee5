#!/usr/bin/env node
/**
 * productdir-import: the entry point and its wiring.
 *
 *   argv ─► cli (import | export) ─► CatalogImport / CatalogExport over the store from the environment
 *   outcome ─► exit code: 0 all loaded, 1 records rejected, 2 usage, file or connection error, or a prune refused
 */
import { Console, Effect } from "effect"
import { Command } from "effect/cli"
import { VERSION } from "@productdir/contract"
import { runCli } from "@productdir/runtime"
import { cli } from "./cli.ts"
import { ROLE } from "./role.ts"

runCli({
  role: ROLE,
  run: Command.run(cli, { version: VERSION }),
  known: (error) => {
    switch (error._tag) {
      // The summary and each rejection are already printed.
      case "RecordsRejected":
        return Effect.succeed(1)
      // The summary said why the prune asked for was not done.
      case "PruneRefused":
        return Effect.succeed(2)
      case "StoppedPartWay":
        return Console.error(
          `productdir-import: the store failed part-way (${error.reason}) after ${error.committed.toLocaleString("en")} records were committed; they stay. Run the same import again to finish it.`
        ).pipe(Effect.as(2))
      case "InputError":
        return Console.error(`productdir-import: ${error.message}`).pipe(Effect.as(2))
      default:
        return undefined
    }
  }
})
