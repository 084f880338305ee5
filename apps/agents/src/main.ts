#!/usr/bin/env node
/**
 * productdir-agents: the entry point and its wiring.
 *
 *   argv ─► cli (list | show | revoke | restore) ─► AgentRegistry over the store from the environment
 *   outcome ─► exit code: 0 done, 1 no such agent, 2 usage or connection error
 */
// Each module by its own path: the package index also loads its Redis, cluster and WebSocket modules.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Layer } from "effect"
import { Command } from "effect/cli"
import { VERSION } from "@productdir/contract"
import { layerCli, storeFailureHandlers, teardown } from "@productdir/runtime"
import { agentsCommand } from "./cli.ts"
import { ROLE } from "./role.ts"

const program = Command.run(agentsCommand, { version: VERSION }).pipe(
  Effect.as(0),
  Effect.catchTags({
    AgentNotFound: (error) =>
      Console.error(`productdir-agents: ${error.message}. productdir-agents list shows every agent.`).pipe(Effect.as(1)),
    UsageError: (error) => Console.error(`productdir-agents: ${error.message}`).pipe(Effect.as(2)),
    ...storeFailureHandlers(ROLE, 2)
  }),
  // Usage errors: effect/cli has already printed what was wrong.
  Effect.catch(() => Effect.succeed(2)),
  Effect.provide(Layer.mergeAll(NodeServices.layer, layerCli))
)

NodeRuntime.runMain(program, { teardown: teardown(2) })
