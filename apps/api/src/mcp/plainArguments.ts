/**
 * Tool arguments checked in the words every door uses (the domain's fieldErrors: `direction must be "up" or
 * "down"`, `score is not an argument of this tool`), before the MCP library decodes them again and would say
 * the schema library's `Missing key` or `Expected no excess property`. Arguments that do not fit are the
 * library's invalid input as before, so each protocol revision gets its own form of it (a tool error the agent
 * reads from 2025-11-25, -32602 before), only said plainly.
 *
 * Done by handing the toolkit a registry whose `addTool` wraps each tool's handler: the library's registration
 * (its schemas, hints and result encoding) is kept as it is.
 */
import { Effect, Layer, Result, Schema, type SchemaIssue } from "effect"
import { McpSchema, McpServer } from "effect/ai"
import { DirectoryTools, describeFieldErrors, fieldErrors, UNKNOWN_FIELD } from "@productdir/contract"

/** What is wrong with a tool's arguments, as one sentence an agent can act on. */
export const argumentsProblem = (tool: string, issue: SchemaIssue.Issue, sent: unknown): McpSchema.InvalidParams =>
  new McpSchema.InvalidParams({
    message: `Invalid arguments for ${tool}: ${describeFieldErrors(
      fieldErrors(issue, undefined, sent).map((e) =>
        e.message === UNKNOWN_FIELD ? { ...e, message: "is not an argument of this tool" } : e
      ),
      false
    )}.`
  })

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
