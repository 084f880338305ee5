/**
 * Tool arguments checked in the words every door uses (the domain's fieldErrors: `direction must be "up" or
 * "down"`, `score is not an argument of this tool`), before the MCP library decodes them again and would say
 * the schema library's `Missing key` or `Expected no excess property`. Arguments that do not fit are still the
 * library's invalid input, so each protocol revision gets its own form of it (a tool error the agent
 * reads from 2025-11-25, -32602 before), only said plainly.
 *
 * Done by handing the toolkit a registry whose `addTool` wraps each tool's handler: the library's registration
 * (its schemas, hints and result encoding) is kept as it is.
 */
import { Effect, Layer, Result, Schema, type SchemaIssue } from "effect"
import { McpSchema, McpServer } from "effect/ai"
import { DirectoryTools, describeFieldErrors, fieldErrors, fieldNamesOf, UNKNOWN_FIELD } from "@productdir/contract"

/** The arguments each tool takes, by its name: named beside an unknown one, as the HTTP API names a body's fields. */
const argumentNames = new Map<string, ReadonlyArray<string>>(
  Object.values(DirectoryTools.tools).map((tool) => [tool.name, fieldNamesOf((tool.parametersSchema as Schema.Top).ast)] as const)
)

/**
 * What is wrong with a tool's arguments, as one sentence an agent can act on. A misspelt argument (`querry`,
 * `entityId`) comes with the tool's own, so that the agent can send the call again right without reading its schema.
 */
export const argumentsProblem = (tool: string, issue: SchemaIssue.Issue, sent: unknown): McpSchema.InvalidParams => {
  const errors = fieldErrors(issue, undefined, sent)
  const names = argumentNames.get(tool) ?? []
  const hint = !errors.some((e) => e.message === UNKNOWN_FIELD)
    ? ""
    : names.length > 0
      ? ` This tool's arguments are ${names.join(", ")}.`
      : " This tool takes no arguments."
  return new McpSchema.InvalidParams({
    message: `Invalid arguments for ${tool}: ${describeFieldErrors(
      errors.map((e) => (e.message === UNKNOWN_FIELD ? { ...e, message: "is not an argument of this tool" } : e)),
      false
    )}.${hint}`
  })
}

/** Each tool's arguments decoded as strictly as the library does: every wrong one at once, no unknown ones. */
const checks = new Map<string, (payload: unknown) => Result.Result<unknown, Schema.SchemaError>>(
  Object.values(DirectoryTools.tools).map((tool) => {
    const decode = Schema.decodeUnknownResult(tool.parametersSchema as Schema.Codec<unknown>)
    return [tool.name, (payload: unknown) => decode(payload ?? {}, { errors: "all", onExcessProperty: "error" })] as const
  })
)

/** The registry the toolkit registers through: its tools' handlers check their arguments first. */
export const PlainArguments = Layer.effect(
  McpServer.McpServer,
  Effect.map(McpServer.McpServer, (registry) =>
    McpServer.McpServer.of({
      ...registry,
      addTool: (options) => {
        const check = checks.get(options.tool.name)
        if (check === undefined) return registry.addTool(options)
        return registry.addTool({
          ...options,
          handle: (payload) => {
            const checked = check(payload)
            return Result.isFailure(checked)
              ? Effect.fail(argumentsProblem(options.tool.name, checked.failure.issue, payload))
              : options.handle(payload)
          }
        })
      }
    })
  )
)
