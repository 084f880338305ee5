/** /entities/{slug}: the agent decision view and the problems list. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { toProductRecord } from "@productdir/domain"
import { Api } from "../Api.ts"
import { ApiConfig } from "../ApiConfig.ts"
import { Directory } from "../Directory.ts"
import { cachedJson } from "../http/cachedJson.ts"
import { withProblems } from "../http/domainProblems.ts"

export const EntitiesLive = HttpApiBuilder.group(Api, "entities", (handlers) =>
  Effect.gen(function*() {
    const directory = yield* Directory
    const config = yield* ApiConfig
    return handlers
      .handle("getEntity", ({ params, query }) =>
        (query.format === "agent"
          ? directory.agentView(params.slug)
          : Effect.map(directory.product(params.slug), (product) => toProductRecord(product, config.utm))).pipe(
            Effect.flatMap(cachedJson),
            withProblems
          ))
      .handle("getProblems", ({ params, query }) =>
        directory.problems(params.slug, query).pipe(Effect.flatMap(cachedJson), withProblems))
  }))
