/** /products: the compatibility read, the agent card, search and list. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import {
  isProductId,
  type ProductId,
  toAgentCard,
  toProductRecord
} from "@productdir/domain"
import { Api } from "../Api.ts"
import { ApiConfig } from "../ApiConfig.ts"
import { Directory } from "../Directory.ts"
import { cachedJson } from "../http/cachedJson.ts"
import { withProblems } from "../http/domainProblems.ts"
import { BadRequest } from "../problems.ts"

/** `/products/{id}` takes ids only; a slug there gets pointed to `/entities/{slug}`. */
export const requireProductId = (id: string) =>
  isProductId(id)
    ? Effect.succeed<ProductId>(id)
    : Effect.fail(new BadRequest({
      detail: `"${id}" is not a UUID: /products/{id} takes a product id. To read a product by its slug, use GET /entities/${encodeURIComponent(id)}?format=agent.`,
      errors: [{ path: ["params", "id"], message: "Expected a UUID" }]
    }))

const parseSince = (since: string | undefined) => {
  if (since === undefined) return Effect.succeed(undefined)
  const at = new Date(since)
  return Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(since)
    ? Effect.fail(new BadRequest({
      detail: "updated_since must be an ISO 8601 timestamp, e.g. 2026-11-01T00:00:00Z.",
      errors: [{ path: ["query", "updated_since"], message: "Expected an ISO 8601 timestamp" }]
    }))
    : Effect.succeed(at)
}

export const ProductsLive = HttpApiBuilder.group(Api, "products", (handlers) =>
  Effect.gen(function*() {
    const directory = yield* Directory
    const config = yield* ApiConfig
    return handlers
      .handle("getProduct", ({ params }) =>
        requireProductId(params.id).pipe(
          Effect.flatMap(directory.product),
          Effect.flatMap((product) => cachedJson(toProductRecord(product, config.utm))),
          withProblems
        ))
      .handle("getAgentCard", ({ params }) =>
        requireProductId(params.id).pipe(
          Effect.flatMap(directory.product),
          Effect.flatMap((product) => cachedJson(toAgentCard(product))),
          withProblems
        ))
      .handle("listProducts", ({ query }) =>
        Effect.gen(function*() {
          const updatedSince = yield* parseSince(query.updated_since)
          const page = yield* directory.search({ ...query, updatedSince })
          return yield* cachedJson(page)
        }).pipe(withProblems))
  }))
