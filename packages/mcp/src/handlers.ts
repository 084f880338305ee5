/**
 * The MCP tools, answered by the same Directory as the HTTP API; failures become
 * tool errors an agent can act on, and links come back absolute (packages/edge/src/links.ts).
 */
import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import type { AgentView } from "@productdir/domain"
import { DirectoryTools, type GetProblems, type GetProduct, type SearchProducts, ToolProblem } from "@productdir/contract"
import { Directory } from "@productdir/usecases"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { Callers } from "@productdir/edge/callers/callers"
import { makeCachedDocument } from "@productdir/read-cache/cachedReads"
import { MCP_DOOR, type Refusal, refusals, refusingAt } from "@productdir/edge/refusals"
import { absoluteLinks, baseUrlOf } from "@productdir/edge/links"

const fail = (message: string) => Effect.fail(new ToolProblem({ message }))
// Every refusal is a tool error an agent reads (../refusals.ts says what each is, in its words).
const toolError = (refused: Refusal) => fail(refused.detail)
const mcp = refusingAt(MCP_DOOR, { notFound: toolError, gone: toolError, invalid: toolError, unavailable: toolError, revoked: toolError })
const badCursor = mcp.InvalidCursor
const unavailable = mcp.StoreError
const readProblems = { ProductNotFound: mcp.ProductNotFound, ProductRemoved: mcp.ProductRemoved, StoreError: mcp.StoreError } as const

/** The HTTP request of this tool call, when it came over HTTP. */
const currentRequest = Effect.serviceOption(HttpServerRequest.HttpServerRequest)

/** A result with its links made absolute for the request it answers. */
const linker = ApiConfig.useSync(
  (config) =>
    <A, E, R>(result: Effect.Effect<A, E, R>) =>
      Effect.flatMap(currentRequest, (request) => Effect.map(result, (value) => absoluteLinks(value, baseUrlOf(config.publicUrl, request))))
)

/** search_products, shared by the toolkit and the registration that adds resource links (searchLinks.ts). */
export const SearchProductsHandler = Effect.gen(function* () {
  const directory = yield* Directory.Directory
  const linked = yield* linker
  return (query: typeof SearchProducts.parametersSchema.Type) =>
    linked(directory.search(query)).pipe(Effect.catchTags({ InvalidCursor: badCursor, StoreError: unavailable }))
})

/** get_product, shared by the toolkit and the registration that adds its problems in prose (problemProse.ts). */
export const GetProductHandler = Effect.gen(function* () {
  const linked = yield* linker
  // The same prepared reads as HTTP's: a product an agent reads over either door is loaded once.
  const cached = yield* makeCachedDocument
  return ({ entity_id }: typeof GetProduct.parametersSchema.Type) =>
    linked(Effect.map(cached("view", entity_id), (view) => view as AgentView)).pipe(Effect.catchTags(readProblems))
})

/** get_problems, shared as get_product is. */
export const GetProblemsHandler = Effect.gen(function* () {
  const directory = yield* Directory.Directory
  const linked = yield* linker
  return ({ entity_id, ...page }: typeof GetProblems.parametersSchema.Type) =>
    linked(directory.problems(entity_id, page)).pipe(Effect.catchTags({ ...readProblems, InvalidCursor: badCursor }))
})

export const DirectoryToolsLive = DirectoryTools.toLayer(
  Effect.gen(function* () {
    const directory = yield* Directory.Directory
    const callers = yield* Callers
    const config = yield* ApiConfig
    const linked = yield* linker
    const search = yield* SearchProductsHandler
    return DirectoryTools.of({
      search_products: search,
      get_product: yield* GetProductHandler,
      get_problems: yield* GetProblemsHandler,
      list_categories: () => linked(directory.categories).pipe(Effect.catchTags({ StoreError: unavailable })),
      vote: (ballot) =>
        Effect.gen(function* () {
          // Who votes is who sent the HTTP request: its API key or signature, else its address.
          const request = yield* currentRequest
          if (Option.isNone(request)) return yield* new ToolProblem({ message: "Votes are taken over HTTP only." })
          const caster = yield* callers.identify(request.value).pipe(
            Effect.catchTags({
              CallerRefused: (refused) => fail(refused.detail),
              ClientLimited: (limited) => fail(refusals.RateLimited("Vote", limited, MCP_DOOR)),
              EnrolmentLimited: (limited) => fail(refusals.RateLimited(refusals.NEW_SIGNED_AGENT, limited, MCP_DOOR)),
              StoreError: unavailable
            })
          )
          const result = yield* directory.vote(ballot, caster).pipe(
            Effect.catchTags({
              ...readProblems,
              AgentRevoked: mcp.AgentRevoked
            })
          )
          if (result._tag === "Limited") return yield* fail(refusals.RateLimited("Vote", result.decision, MCP_DOOR))
          return absoluteLinks(result.outcome, baseUrlOf(config.publicUrl, request))
        })
    })
  })
)
