/** /entities/{slug}: the agent decision view and the problems list. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import {
  CatalogStore,
  DEFAULT_LIMIT,
  decodeOffsetCursor,
  encodeOffsetCursor,
  type Product,
  ProblemStore,
  problemsOf,
  toAgentView,
  toProductRecord
} from "@productdir/domain"
import { Api } from "../Api.ts"
import { ApiConfig } from "../ApiConfig.ts"
import { cachedJson } from "../http/cachedJson.ts"
import { withProblems } from "../http/domainProblems.ts"

export const EntitiesLive = HttpApiBuilder.group(Api, "entities", (handlers) =>
  Effect.gen(function*() {
    const catalog = yield* CatalogStore
    const reports = yield* ProblemStore
    const config = yield* ApiConfig
    const problemsFor = (product: Product) => Effect.map(reports.reported(product.id), (r) => problemsOf(product, r))

    return handlers
      .handle("getEntity", ({ params, query }) =>
        Effect.gen(function*() {
          const product = yield* catalog.find(params.slug)
          if (query.format !== "agent") return yield* cachedJson(toProductRecord(product, config.utm))
          const problems = yield* problemsFor(product)
          return yield* cachedJson(toAgentView(product, problems, config.utm))
        }).pipe(withProblems))
      .handle("getProblems", ({ params, query }) =>
        Effect.gen(function*() {
          const product = yield* catalog.find(params.slug)
          const offset = query.cursor === undefined ? 0 : yield* Effect.fromResult(decodeOffsetCursor(query.cursor))
          const problems = yield* problemsFor(product)
          const limit = query.limit ?? DEFAULT_LIMIT
          const next = offset + limit
          return yield* cachedJson({
            entity: { id: product.id, slug: product.slug, name: product.content.name },
            problems: problems.slice(offset, next),
            total: problems.length,
            next_cursor: next < problems.length ? encodeOffsetCursor(next) : null
          })
        }).pipe(withProblems))
  }))

