/**
 * The command line: `list`, `show <id>`, `revoke <id>`, `restore <id>`, for voter groups
 * `groups`, `group <id>`, `confirm <id>`, `clear <id>`, and `held <product>` (why its held votes wait), on the
 * store the environment names (the same settings as the other tools). Each
 * subcommand provides the store itself, so `--help` and usage errors never
 * touch a database.
 */
import { Console, Effect, Layer, Schema, Stream } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import type { AgentId } from "@productdir/domain"
import { layerForCatalog } from "@productdir/runtime"
import { AgentAdministration, GroupReview } from "@productdir/usecases"
import { UsageError } from "./errors.ts"
import {
  agentJson,
  changeLine,
  decisionLine,
  details,
  groupDetails,
  groupJson,
  groupTable,
  heldLines,
  recountLines,
  tableOf
} from "./output.ts"
import { ROLE } from "./role.ts"

const isUuid = Schema.is(Schema.String.check(Schema.isUUID()))

const agentIdOf = (raw: string): Effect.Effect<AgentId, UsageError> =>
  isUuid(raw)
    ? Effect.succeed(raw.toLowerCase() as AgentId)
    : Effect.fail(new UsageError({ message: `"${raw}" is not an agent id: ids are UUIDs, as productdir-agents list shows them` }))

const id = Argument.String("agent-id").pipe(Argument.withDescription("The agent's id (a UUID, as `list` shows it)"))
const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON instead of text"))

/** The operators' use cases over the catalog the environment names (never one created by the asking). */
const Catalog = layerForCatalog(ROLE, { readOnly: false })
const Administration = AgentAdministration.layer.pipe(Layer.provide(Catalog))
const Review = GroupReview.layer.pipe(Layer.provide(Catalog))

const groupId = Argument.String("group-id").pipe(Argument.withDescription("The group's id (a UUID, as `groups` shows it)"))

/** A group id is a UUID too: anything else is a usage error (exit 2), as a malformed agent id is, not "no such group" (1). */
const groupIdOf = (raw: string): Effect.Effect<string, UsageError> =>
  isUuid(raw)
    ? Effect.succeed(raw.toLowerCase())
    : Effect.fail(new UsageError({ message: `"${raw}" is not a group id: ids are UUIDs, as productdir-agents groups shows them` }))

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

const groups = Command.make(
  "groups",
  {
    json,
    all: Flag.Boolean("all").pipe(
      Flag.withDefault(false),
      Flag.withDescription("Confirmed and cleared groups too, not only suspected ones")
    )
  },
  (options) =>
    Effect.gen(function* () {
      const review = yield* GroupReview.GroupReview
      const found = yield* review.list(options.all ? undefined : ["suspected"])
      if (options.json) return yield* Console.log(JSON.stringify(found.map(groupJson), null, 2))
      yield* Console.log(
        found.length > 0
          ? groupTable(found)
          : options.all
            ? "no voter groups found yet: productdir-reconcile's integrity pass finds them"
            : "no suspected voter groups (--all shows confirmed and cleared ones too)"
      )
    }).pipe(Effect.provide(Review))
).pipe(
  Command.withDescription(
    "Voter groups the integrity pass found (in lockstep across products, or addresses that exist for one product), newest first; suspected ones unless --all"
  )
)

const group = Command.make("group", { id: groupId, json }, (options) =>
  Effect.gen(function* () {
    const review = yield* GroupReview.GroupReview
    const found = yield* review.find(yield* groupIdOf(options.id))
    yield* Console.log(options.json ? JSON.stringify(groupJson(found), null, 2) : groupDetails(found))
  }).pipe(Effect.provide(Review))
).pipe(Command.withDescription("One voter group and its evidence: members, shared products and when they were voted, networks"))

const decision = (status: "confirmed" | "cleared", name: "confirm" | "clear", description: string) =>
  Command.make(name, { id: groupId, json }, (options) =>
    Effect.gen(function* () {
      const review = yield* GroupReview.GroupReview
      const decided = yield* review.decide(yield* groupIdOf(options.id), status)
      if (options.json) {
        return yield* Console.log(
          JSON.stringify(
            {
              ...groupJson(decided.group),
              changed: decided.changed,
              votes_moved: decided.votes,
              recounted: decided.recounted.map((r) => ({
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
      yield* Console.log(decisionLine(decided))
      for (const line of recountLines(decided)) yield* Console.log(line)
    }).pipe(Effect.provide(Review))
  ).pipe(Command.withDescription(description))

const product = Argument.String("product").pipe(Argument.withDescription("The product's id or slug"))

const held = Command.make("held", { product, json }, (options) =>
  Effect.gen(function* () {
    const review = yield* GroupReview.GroupReview
    const { product, formation } = yield* review.held(options.product)
    yield* Console.log(
      options.json ? JSON.stringify({ entity_id: product.id, trust_formation: formation }, null, 2) : heldLines(product, formation)
    )
  }).pipe(Effect.provide(Review))
).pipe(
  Command.withDescription(
    "Why a product's held votes are held (waiting for the next pass, anonymous in a burst, or a flood's), and what its counted votes weigh"
  )
)

export const agentsCommand = Command.make("productdir-agents").pipe(
  Command.withDescription(
    "The agents whose votes the directory counts, and the voter groups the integrity pass found. Revoking an agent keeps its votes in the ledger, marked, and stops counting them: its products are recounted at once. Restoring undoes it. Confirming a group keeps its votes discounted; clearing it counts them again. Exit 0: done; 1: no agent or group has that id; 2: usage or connection error."
  ),
  Command.withSubcommands([
    list,
    show,
    standingCommand("revoke", "Stop counting an agent's votes and problem reports, refuse its key, and recount its products"),
    standingCommand("restore", "Count a revoked agent's votes again, accept its key, and recount its products"),
    groups,
    group,
    decision(
      "confirmed",
      "confirm",
      "Confirm a voter group: its votes stay discounted and its members lose standing; its products are recounted"
    ),
    decision("cleared", "clear", "Clear a voter group: its votes count again and no later pass discounts them; its products are recounted"),
    held
  ])
)
