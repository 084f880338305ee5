/**
 * The command line: `list`, `show <id>`, `revoke <id>`, `restore <id>`, on the
 * store the environment names (the same settings as the other tools). Each
 * subcommand provides the store itself, so `--help` and usage errors never
 * touch a database.
 */
import { Console, Effect, Layer, Schema, Stream } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import type { AgentId } from "@productdir/domain"
import { layerFromConfig } from "@productdir/runtime"
import { AgentAdministration } from "@productdir/usecases"
import { UsageError } from "./errors.ts"
import { agentJson, changeLine, details, recountLines, tableOf } from "./output.ts"
import { ROLE } from "./role.ts"

const isUuid = Schema.is(Schema.String.check(Schema.isUUID()))

const agentIdOf = (raw: string): Effect.Effect<AgentId, UsageError> =>
  isUuid(raw)
    ? Effect.succeed(raw.toLowerCase() as AgentId)
    : Effect.fail(new UsageError({ message: `"${raw}" is not an agent id: ids are UUIDs, as productdir-agents list shows them` }))

const id = Argument.String("agent-id").pipe(Argument.withDescription("The agent's id (a UUID, as `list` shows it)"))
const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON instead of text"))

/** The operators' use case over the store the environment names. */
const Administration = AgentAdministration.layer.pipe(Layer.provide(layerFromConfig(ROLE)))

const list = Command.make(
  "list",
  {
    json,
    revoked: Flag.Boolean("revoked").pipe(Flag.withDefault(false), Flag.withDescription("Only agents that are revoked"))
  },
  (options) =>
    Effect.gen(function* () {
      const administration = yield* AgentAdministration.AgentAdministration
      const agents = yield* administration.list.pipe(
        Stream.filter((agent) => !options.revoked || agent.revokedAt !== null),
        Stream.runCollect
      )
      if (options.json) return yield* Console.log(JSON.stringify(agents.map(agentJson), null, 2))
      yield* Console.log(agents.length === 0 ? "no agents yet: agents register with POST /agents" : tableOf(agents))
    }).pipe(Effect.provide(Administration))
).pipe(Command.withDescription("Every agent, oldest first: id, kind, name, votes, standing"))

const show = Command.make("show", { id, json }, (options) =>
  Effect.gen(function* () {
    const administration = yield* AgentAdministration.AgentAdministration
    const agent = yield* Effect.flatMap(agentIdOf(options.id), administration.find)
    yield* Console.log(options.json ? JSON.stringify(agentJson(agent), null, 2) : details(agent))
  }).pipe(Effect.provide(Administration))
).pipe(Command.withDescription("One agent: who it is, how it proves it, its votes and standing"))

const standingCommand = (operation: "revoke" | "restore", description: string) =>
  Command.make(operation, { id, json }, (options) =>
    Effect.gen(function* () {
      const administration = yield* AgentAdministration.AgentAdministration
      const agentId = yield* agentIdOf(options.id)
      const change = yield* operation === "revoke" ? administration.revoke(agentId) : administration.restore(agentId)
      if (options.json) {
        return yield* Console.log(
          JSON.stringify(
            {
              agent_id: change.agent.id,
              changed: change.changed,
              votes: change.votes,
              recounted: change.recounted.map((r) => ({
                id: r.id,
                before: { trust_up: r.before.up, trust_down: r.before.down },
                after: { trust_up: r.after.up, trust_down: r.after.down }
              }))
            },
            null,
            2
          )
        )
      }
      yield* Console.log(changeLine(operation, change))
      for (const line of recountLines(change)) yield* Console.log(line)
    }).pipe(Effect.provide(Administration))
  ).pipe(Command.withDescription(description))

export const agentsCommand = Command.make("productdir-agents").pipe(
  Command.withDescription(
    "The agents whose votes the directory counts. Revoking an agent keeps its votes in the ledger, marked, and stops counting them: its products are recounted at once. Restoring undoes it. Exit 0: done; 1: no agent has that id; 2: usage or connection error."
  ),
  Command.withSubcommands([
    list,
    show,
    standingCommand("revoke", "Stop counting an agent's votes and problem reports, refuse its key, and recount its products"),
    standingCommand("restore", "Count a revoked agent's votes again, accept its key, and recount its products")
  ])
)
