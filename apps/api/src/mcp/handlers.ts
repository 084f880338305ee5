/** The MCP tools, answered by the same Directory as the HTTP API; failures become tool errors an agent can act on. */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import type { InvalidCursor, ProductNotFound, ProductRemoved, StoreError } from "@productdir/domain"
import { Directory } from "../Directory.ts"
import { DirectoryTools, ToolProblem } from "./tools.ts"

const explain = (error: ProductNotFound | ProductRemoved | InvalidCursor | StoreError): ToolProblem => {
  switch (error._tag) {
    case "ProductNotFound":
      return new ToolProblem({ message: `No product has the id or slug "${error.ref}". Find products with search_products.` })
    case "ProductRemoved":
      return new ToolProblem({ message: `${error.message}. Choose another product.` })
    case "InvalidCursor":
      return new ToolProblem({ message: `${error.message}. Call again without a cursor.` })
    case "StoreError":
      return new ToolProblem({ message: "The directory's store is unavailable right now. Retry shortly." })
  }
}

export const DirectoryToolsLive = DirectoryTools.toLayer(Effect.gen(function*() {
  const directory = yield* Directory
  return DirectoryTools.of({
    search_products: (query) => directory.search(query).pipe(Effect.mapError(explain)),
    get_product: ({ entity }) => directory.agentView(entity).pipe(Effect.mapError(explain)),
    get_problems: ({ entity, ...page }) => directory.problems(entity, page).pipe(Effect.mapError(explain)),
    list_categories: () => directory.categories.pipe(Effect.mapError(explain)),
    vote: (ballot) =>
      Effect.gen(function*() {
        if (ballot.reason !== undefined && ballot.direction !== "down") {
          return yield* new ToolProblem({ message: "reason: a reason goes only with direction \"down\"" })
        }
        const request = yield* HttpServerRequest.HttpServerRequest
        const result = yield* directory.vote(ballot, request).pipe(Effect.mapError(explain))
        if (result._tag === "Limited") {
          return yield* new ToolProblem({
            message: `Vote rate limit reached (${result.decision.limit} per minute). Retry after ${result.decision.retryAfterSeconds} s.`
          })
        }
        return result.outcome
      })
  })
}))
