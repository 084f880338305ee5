#!/usr/bin/env node
/**
 * productdir-agents: the entry point and its wiring.
 *
 *   argv ─► cli (list | show | revoke | restore | groups | group | confirm | clear | held) ─► AgentAdministration,
 *           GroupReview over the store from the environment
 *   outcome ─► exit code: 0 done, 1 no such agent, group or product, 2 usage or connection error
 */
import { Console, Effect } from "effect"
import { Command } from "effect/cli"
import { VERSION } from "@productdir/contract"
import { runCli } from "@productdir/runtime"
import { agentsCommand } from "./cli.ts"
import { ROLE } from "./role.ts"

runCli({
  role: ROLE,
  run: Command.run(agentsCommand, { version: VERSION }),
  known: (error) => {
    switch (error._tag) {
      case "AgentNotFound":
        return Console.error(`productdir-agents: ${error.message}. productdir-agents list shows every agent.`).pipe(Effect.as(1))
      case "GroupNotFound":
        return Console.error(`productdir-agents: ${error.message}. productdir-agents groups --all shows every group.`).pipe(Effect.as(1))
      case "ProductNotFound":
      case "ProductRemoved":
        return Console.error(`productdir-agents: ${error.message}.`).pipe(Effect.as(1))
      case "UsageError":
        return Console.error(`productdir-agents: ${error.message}`).pipe(Effect.as(2))
      default:
        return undefined
    }
  }
})
