/** Directory-wide reads: categories, the service index, llms.txt, health. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CatalogStore } from "@productdir/domain"
import { Api } from "../Api.ts"
import { Directory } from "../Directory.ts"
import { llmsTxt, serviceIndex } from "../catalogGuide.ts"
import { cachedJson } from "../http/cachedJson.ts"
import { ServiceUnavailable } from "../problems.ts"

export const DirectoryLive = HttpApiBuilder.group(Api, "directory", (handlers) =>
  Effect.gen(function*() {
    const catalog = yield* CatalogStore
    const directory = yield* Directory
    const index = serviceIndex()
    const guide = llmsTxt()
    const unavailable = () => Effect.fail(new ServiceUnavailable({ detail: "The catalog store is unavailable. Retry shortly." }))

    return handlers
      .handle("listCategories", () =>
        directory.categories.pipe(Effect.flatMap(cachedJson), Effect.catchTag("StoreError", unavailable)))
      .handle("index", () => cachedJson(index))
      .handle("llms", () => Effect.succeed(guide))
      .handle("healthz", () => Effect.succeed({ status: "ok" as const }))
      .handle("readyz", () =>
        catalog.ping.pipe(
          Effect.as({ status: "ready" as const }),
          Effect.catchTag("StoreError", unavailable)
        ))
  }))
