/**
 * get_problems and get_product with their problems in prose: besides the result (structured content and its JSON
 * text), a text block in the directory's words in which voters' words appear only as quotations introduced as
 * reports (packages/edge/src/reportProse.ts). A model that reads the text rather than the structure still cannot take a voter's
 * report for something the directory said. As searchLinks.ts does, the toolkit's registrations (names, schemas,
 * hints) are kept and their handlers replaced; both answer through the same handlers (handlers.ts).
 */
import { Effect, Layer, Schema } from "effect"
import { McpSchema, McpServer } from "effect/ai"
import { AgentView, ProblemList } from "@productdir/domain"
import { GetProblems, GetProduct, type ToolProblem } from "@productdir/contract"
import { problemsProse } from "@productdir/edge/reportProse"
import { GetProblemsHandler, GetProductHandler } from "./handlers.ts"
import { argumentsProblem } from "./plainArguments.ts"

const replace = <PT, PE, AT, AE>(
  name: string,
  parameters: Schema.Codec<PT, PE>,
  result: Schema.Codec<AT, AE>,
  handler: (args: PT) => Effect.Effect<AT, ToolProblem>,
  prose: (value: AT) => string
) =>
  Effect.gen(function* () {
    const registry = yield* McpServer.McpServer
    const registered = registry.tools.find(({ tool }) => tool.name === name)
    if (registered === undefined) return yield* Effect.die(`${name} must be registered (the toolkit) before its prose`)
    const decode = Schema.decodeUnknownEffect(parameters)
    const encode = Schema.encodeEffect(result)
    yield* registry.addTool({
      tool: registered.tool,
      annotations: registered.annotations,
      handle: (payload) =>
        Effect.gen(function* () {
          // Bad arguments, and arguments the tool does not have, are said as for every other tool (plainArguments.ts).
          const args = yield* decode(payload ?? {}, { errors: "all", onExcessProperty: "error" }).pipe(
            Effect.mapError((error) => argumentsProblem(name, error.issue, payload))
          )
          const value = yield* handler(args)
          const encoded = yield* encode(value).pipe(Effect.mapError((error) => new McpSchema.InternalError({ message: error.message })))
          return new McpSchema.CallToolResult({
            structuredContent: encoded,
            content: [
              { type: "text", text: JSON.stringify(encoded) },
              { type: "text", text: prose(value) }
            ]
          })
        }).pipe(
          Effect.catchTag("ToolProblem", (problem) =>
            Effect.succeed(new McpSchema.CallToolResult({ isError: true, content: [{ type: "text", text: problem.message }] }))
          )
        )
    })
  })

export const ProblemProseLive = Layer.effectDiscard(
  Effect.gen(function* () {
    yield* replace(GetProblems.name, GetProblems.parametersSchema, ProblemList, yield* GetProblemsHandler, (list) =>
      problemsProse(list.entity.name, list.problems, list.total)
    )
    yield* replace(GetProduct.name, GetProduct.parametersSchema, AgentView, yield* GetProductHandler, (view) =>
      problemsProse(view.name, view.problems.top, view.problems.total)
    )
  })
)
