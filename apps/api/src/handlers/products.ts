/** /products: the compatibility read, the agent card, search and list. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api, BadRequest } from "@productdir/contract"
import { Directory } from "@productdir/usecases"
import { makeCachedRead } from "../cache/cachedReads.ts"
import { cachedJson } from "../http/cachedJson.ts"
import { invalidCursor, readProblems, storeUnavailable } from "../http/domainProblems.ts"

const parseSince = (since: string | undefined) => {
  if (since === undefined) return Effect.succeed(undefined)
  const at = new Date(since)
  return Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(since)
    ? Effect.fail(
        new BadRequest({
          detail: "updated_since must be an ISO 8601 timestamp, e.g. 2026-11-01T00:00:00Z.",
          errors: [{ path: ["query", "updated_since"], message: "Expected an ISO 8601 timestamp" }]
        })
      )
    : Effect.succeed(at)
}

export const ProductsLive = HttpApiBuilder.group(Api, "products", (handlers) =>
  Effect.gen(function* () {
    const directory = yield* Directory.Directory
    const cachedRead = yield* makeCachedRead
    return handlers
      .handle("getProduct", ({ params }) => cachedRead("record", params.id).pipe(Effect.catchTags(readProblems)))
      .handle("getAgentCard", ({ params }) => cachedRead("card", params.id).pipe(Effect.catchTags(readProblems)))
      .handle("listProducts", ({ query }) =>
        Effect.gen(function* () {
          const updatedSince = yield* parseSince(query.updated_since)
          const page = yield* directory.search({ ...query, updatedSince })
          return yield* cachedJson(page)
        }).pipe(Effect.catchTags({ InvalidCursor: invalidCursor, StoreError: storeUnavailable }))
      )
  })
)
