/**
 * The command line: `list`, `show <id>`, `suspend <id> --reason`, `restore <id> --reason`, `audit`, on the store the
 * environment names (the same settings as the other tools). Each subcommand provides the store itself, so `--help`
 * and usage errors never touch a database.
 */
import { Console, Effect, Layer, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import type { PublisherId } from "@productdir/domain"
import { layerForCatalog } from "@productdir/runtime"
import { PublisherAdministration } from "@productdir/usecases"
import { UsageError } from "./errors.ts"
import { auditJson, auditLines, publisherDetails, publisherJson, publisherTable } from "./output.ts"
import { ROLE } from "./role.ts"

const isUuid = Schema.is(Schema.String.check(Schema.isUUID()))

const publisherIdOf = (raw: string): Effect.Effect<PublisherId, UsageError> =>
  isUuid(raw)
    ? Effect.succeed(raw.toLowerCase() as PublisherId)
    : Effect.fail(new UsageError({ message: `"${raw}" is not a publisher id: ids are UUIDs, as productdir-publishers list shows them` }))

const id = Argument.String("publisher-id").pipe(Argument.withDescription("The publisher's id (a UUID, as `list` shows it)"))
const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON instead of text"))
const reason = Flag.String("reason").pipe(Flag.withDescription("Why: kept in the audit trail, and shown to the publisher"))

/** The operators' use case over the catalog the environment names (never one created by the asking). */
const Administration = PublisherAdministration.layer.pipe(Layer.provide(layerForCatalog(ROLE, { readOnly: false })))

const list = Command.make("list", { json }, (options) =>
  Effect.gen(function* () {
    const publishers = yield* (yield* PublisherAdministration.PublisherAdministration).list
    if (options.json) return yield* Console.log(JSON.stringify(publishers.map(publisherJson), null, 2))
    yield* Console.log(
      publishers.length === 0 ? "no publishers yet: vendors claim their domains with POST /publishers" : publisherTable(publishers)
    )
  }).pipe(Effect.provide(Administration))
).pipe(Command.withDescription("Every claim and publisher, oldest first: id, domain, status, proof, checks"))

const show = Command.make("show", { id, json }, (options) =>
  Effect.gen(function* () {
    const administration = yield* PublisherAdministration.PublisherAdministration
    const { publisher, audit } = yield* Effect.flatMap(publisherIdOf(options.id), administration.show)
    yield* Console.log(
      options.json
        ? JSON.stringify({ ...publisherJson(publisher), audit: audit.map(auditJson) }, null, 2)
        : publisherDetails(publisher, audit)
    )
  }).pipe(Effect.provide(Administration))
).pipe(Command.withDescription("One publisher: its domain, status, proof and checks, and its audit trail"))

const statusCommand = (operation: "suspend" | "restore", description: string) =>
  Command.make(operation, { id, reason, json }, (options) =>
    Effect.gen(function* () {
      const administration = yield* PublisherAdministration.PublisherAdministration
      const publisherId = yield* publisherIdOf(options.id)
      const why = options.reason.trim()
      if (why.length === 0) return yield* new UsageError({ message: `--reason must say why the publisher is ${operation}ed` })
      const after = yield* operation === "suspend" ? administration.suspend(publisherId, why) : administration.restore(publisherId, why)
      yield* Console.log(
        options.json
          ? JSON.stringify(publisherJson(after), null, 2)
          : `${operation === "suspend" ? "suspended" : "restored"} the publisher of ${after.domain} (${after.id}): ${why}`
      )
    }).pipe(Effect.provide(Administration))
  ).pipe(Command.withDescription(description))

const productCommand = (operation: "take-down" | "bring-back", description: string) =>
  Command.make(
    operation,
    {
      product: Argument.String("product").pipe(Argument.withDescription("The product's id or slug")),
      reason,
      json
    },
    (options) =>
      Effect.gen(function* () {
        const administration = yield* PublisherAdministration.PublisherAdministration
        const why = options.reason.trim()
        if (why.length === 0) {
          return yield* new UsageError({
            message: `--reason must say why the product is ${operation === "take-down" ? "taken down" : "brought back"}`
          })
        }
        const id = yield* operation === "take-down"
          ? administration.takeDown(options.product, why)
          : administration.bringBack(options.product, why)
        yield* Console.log(
          options.json
            ? JSON.stringify({ id, status: operation === "take-down" ? "removed" : "active", reason: why }, null, 2)
            : operation === "take-down"
              ? `took down ${options.product} (${id}): its reads answer 410 with "${why}" on every API within a second`
              : `brought back ${options.product} (${id}): ${why}`
        )
      }).pipe(Effect.provide(Administration))
  ).pipe(Command.withDescription(description))

const audit = Command.make(
  "audit",
  {
    json,
    publisher: Flag.String("publisher").pipe(Flag.optional, Flag.withDescription("Only this publisher's entries (its id)")),
    product: Flag.String("product").pipe(Flag.optional, Flag.withDescription("Only this product's entries (its id)")),
    limit: Flag.Int("limit").pipe(Flag.withDefault(100), Flag.withDescription("At most this many entries, latest first"))
  },
  (options) =>
    Effect.gen(function* () {
      if (options.limit < 1) return yield* new UsageError({ message: "--limit must be a whole number from 1" })
      const subject =
        options.publisher._tag === "Some"
          ? `publisher:${yield* publisherIdOf(options.publisher.value)}`
          : options.product._tag === "Some"
            ? `product:${options.product.value.toLowerCase()}`
            : undefined
      const entries = yield* (yield* PublisherAdministration.PublisherAdministration).audit(subject, options.limit)
      if (options.json) return yield* Console.log(JSON.stringify(entries.map(auditJson), null, 2))
      yield* Console.log(entries.length === 0 ? "no audit entries" : auditLines(entries).join("\n"))
    }).pipe(Effect.provide(Administration))
).pipe(Command.withDescription("The audit trail, latest first: who did what to which publisher or product, when and why"))

export const publishersCommand = Command.make("productdir-publishers").pipe(
  Command.withDescription(
    "The publishers who vouch for products, and the audit trail of what operators and publishers did. Suspending a publisher stops its key at once (its products' records stay); restoring it gives the key back. Exit 0: done; 1: no publisher has that id, or it is not in a state the change needs; 2: usage or connection error."
  ),
  Command.withSubcommands([
    list,
    show,
    statusCommand("suspend", "Suspend a verified publisher: its key stops working, its products' records stay (--reason is required)"),
    statusCommand("restore", "Restore a suspended publisher: its key works again and its checks start afresh (--reason is required)"),
    productCommand("take-down", "Take any product down: its reads answer 410 with the reason, its votes are kept (--reason is required)"),
    productCommand("bring-back", "Undo a takedown: the product is live again as it was (--reason is required)"),
    audit
  ])
)
