/** /entities/{slug}: the agent decision view and the problems list. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { toProductRecord } from "@productdir/domain"
import { Api } from "@productdir/contract"
import { Directory } from "@productdir/usecases"
import { ApiConfig } from "../ApiConfig.ts"
import { makeCachedRead } from "../cache/cachedReads.ts"
import { cachedJson } from "../http/cachedJson.ts"
import { invalidCursor, readProblems } from "../http/domainProblems.ts"

export const EntitiesLive = HttpApiBuilder.group(Api, "entities", (handlers) =>
  Effect.gen(function* () {
    const directory = yield* Directory.Directory
    const config = yield* ApiConfig
    const cachedRead = yield* makeCachedRead
    return handlers
      .handle("getEntity", ({ params, query }) =>
        (query.format === "agent"
          ? cachedRead(
              "view",
              params.slug,
              Effect.map(directory.agentView(params.slug), (view) => ({ productId: view.id, body: view }))
            )
          : cachedRead(
              "record",
              params.slug,
              Effect.map(directory.product(params.slug), (product) => ({
                productId: product.id,
                body: toProductRecord(product, config.utm)
              }))
            )
        ).pipe(Effect.catchTags(readProblems))
      )
      .handle("getProblems", ({ params, query }) =>
        // Only the first page of the default size is kept: the page agents read.
        (query.cursor === undefined && query.limit === undefined
          ? cachedRead(
              "problems",
              params.slug,
              Effect.map(directory.problems(params.slug, query), (page) => ({ productId: page.entity.id, body: page }))
            )
          : Effect.flatMap(directory.problems(params.slug, query), cachedJson)
        ).pipe(Effect.catchTags({ ...readProblems, InvalidCursor: invalidCursor }))
      )
  })
)
