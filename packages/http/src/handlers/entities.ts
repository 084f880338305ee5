/** /entities/{slug}: the agent decision view and the problems list. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@productdir/contract"
import { Directory } from "@productdir/usecases"
import { makeCachedRead } from "@productdir/read-cache/cachedReads"
import { cachedJson } from "@productdir/edge/responses/cachedJson"
import { invalidCursor, readProblems } from "../domainProblems.ts"

export const EntitiesLive = HttpApiBuilder.group(Api, "entities", (handlers) =>
  Effect.gen(function* () {
    const directory = yield* Directory.Directory
    const cachedRead = yield* makeCachedRead
    return handlers
      .handle("getEntity", ({ params, query }) =>
        cachedRead(query.format === "agent" ? "view" : "record", params.slug).pipe(Effect.catchTags(readProblems))
      )
      .handle("getProblems", ({ params, query }) =>
        // Only the first page of the default size is kept: the page agents read.
        (query.cursor === undefined && query.limit === undefined
          ? cachedRead("problems", params.slug)
          : Effect.flatMap(directory.problems(params.slug, query), cachedJson)
        ).pipe(Effect.catchTags({ ...readProblems, InvalidCursor: invalidCursor }))
      )
  })
)
