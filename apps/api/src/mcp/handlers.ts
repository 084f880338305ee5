/**
 * The MCP tools, answered by the same Directory as the HTTP API; failures become
 * tool errors an agent can act on, and links come back absolute (links.ts).
 */
import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { describeLimit, type InvalidCursor, type ProductNotFound, type ProductRemoved, type StoreError } from "@productdir/domain"
import { DirectoryTools, type SearchProducts, ToolProblem } from "@productdir/contract"
import { Directory } from "@productdir/usecases"
import { ApiConfig } from "../ApiConfig.ts"
import { Callers } from "../auth/callers.ts"
import { absoluteLinks, baseUrlOf } from "./links.ts"

/** What an agent is told when a product read fails: the same words from tools and resources (resources.ts). */
export const readFailureMessages = {
  ProductNotFound: (error: ProductNotFound) => `No product has the id or slug "${error.ref}". Find products with search_products.`,
  ProductRemoved: (error: ProductRemoved) => `${error.message}. Choose another product.`,
  StoreError: (_: StoreError) => "The directory's store is unavailable right now. Retry shortly."
} as const

const notFound = (error: ProductNotFound) => Effect.fail(new ToolProblem({ message: readFailureMessages.ProductNotFound(error) }))
const removed = (error: ProductRemoved) => Effect.fail(new ToolProblem({ message: readFailureMessages.ProductRemoved(error) }))
const badCursor = (error: InvalidCursor) => Effect.fail(new ToolProblem({ message: `${error.message}. Call again without a cursor.` }))
const unavailable = (error: StoreError) => Effect.fail(new ToolProblem({ message: readFailureMessages.StoreError(error) }))
const readProblems = { ProductNotFound: notFound, ProductRemoved: removed, StoreError: unavailable } as const

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

export const DirectoryToolsLive = DirectoryTools.toLayer(
  Effect.gen(function* () {
    const directory = yield* Directory.Directory
    const callers = yield* Callers
    const config = yield* ApiConfig
    const linked = yield* linker
    const search = yield* SearchProductsHandler
    return DirectoryTools.of({
      search_products: search,
      get_product: ({ entity_id }) => linked(directory.agentView(entity_id)).pipe(Effect.catchTags(readProblems)),
      get_problems: ({ entity_id, ...page }) =>
        linked(directory.problems(entity_id, page)).pipe(Effect.catchTags({ ...readProblems, InvalidCursor: badCursor })),
      list_categories: () => linked(directory.categories).pipe(Effect.catchTags({ StoreError: unavailable })),
      vote: (ballot) =>
        Effect.gen(function* () {
          // Who votes is who sent the HTTP request: its API key or signature, else its address.
          const request = yield* currentRequest
          if (Option.isNone(request)) return yield* new ToolProblem({ message: "Votes are taken over HTTP only." })
          const caster = yield* callers.identify(request.value).pipe(
            Effect.catchTags({
              CallerRefused: (refused) => Effect.fail(new ToolProblem({ message: refused.detail })),
              ClientLimited: (limited) =>
                Effect.fail(
                  new ToolProblem({
                    message: `Vote rate limit reached (${describeLimit(limited.limit, limited.windowSeconds)}). Retry after ${limited.retryAfterSeconds} s.`
                  })
                ),
              EnrolmentLimited: (limited) =>
                Effect.fail(
                  new ToolProblem({
                    message: `Too many new agents from this network today (${limited.limit} a day). Retry after ${limited.retryAfterSeconds} s.`
                  })
                ),
              StoreError: unavailable
            })
          )
          const result = yield* directory.vote(ballot, caster).pipe(
            Effect.catchTags({
              ...readProblems,
              AgentRevoked: () => Effect.fail(new ToolProblem({ message: "This agent is revoked: its votes do not count." }))
            })
          )
          if (result._tag === "Limited") {
            const { limit, windowSeconds, retryAfterSeconds } = result.decision
            return yield* new ToolProblem({
              message: `Vote rate limit reached (${describeLimit(limit, windowSeconds)}). Retry after ${retryAfterSeconds} s.`
            })
          }
          return absoluteLinks(result.outcome, baseUrlOf(config.publicUrl, request))
        })
    })
  })
)
