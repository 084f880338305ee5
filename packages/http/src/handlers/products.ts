/** /products: the compatibility read, the agent card, search and list. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@productdir/contract"
import { Directory } from "@productdir/usecases"
import { makeCachedRead } from "@productdir/read-cache/cachedReads"
import { cachedJson } from "@productdir/edge/responses/cachedJson"
import { invalidCursor, readProblems, storeUnavailable, versionNotFound } from "../domainProblems.ts"

export const ProductsLive = HttpApiBuilder.group(Api, "products", (handlers) =>
  Effect.gen(function* () {
    const directory = yield* Directory.Directory
    const cachedRead = yield* makeCachedRead
    return handlers
      .handle("getProduct", ({ params }) => cachedRead("record", params.id).pipe(Effect.catchTags(readProblems)))
      .handle("getAgentCard", ({ params }) => cachedRead("card", params.id).pipe(Effect.catchTags(readProblems)))
      .handle("listVersions", ({ params, query }) =>
        Effect.flatMap(directory.versions(params.id, query), cachedJson).pipe(Effect.catchTags(readProblems))
      )
      .handle("getVersion", ({ params }) =>
        Effect.flatMap(directory.version(params.id, params.version), cachedJson).pipe(
          Effect.catchTags({ ...readProblems, VersionNotFound: versionNotFound })
        )
      )
      .handle("listProducts", ({ query }) =>
        Effect.gen(function* () {
          // A timestamp already: the query's schema checked it (SinceQuery), with every other parameter.
          const updatedSince = query.updated_since === undefined ? undefined : new Date(query.updated_since)
          const page = yield* directory.search({ ...query, updatedSince })
          return yield* cachedJson(page)
        }).pipe(Effect.catchTags({ InvalidCursor: invalidCursor, StoreError: storeUnavailable }))
      )
  })
)
