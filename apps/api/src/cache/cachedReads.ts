/**
 * The product reads through the read cache (ReadCache.ts), as their handlers
 * serve them: from the cache, or loaded on a miss, encoded once and kept. A
 * read the cache holds usually never reaches a handler: hotReads.ts answers it
 * first.
 */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import type { ProductId } from "@productdir/domain"
import { ApiConfig } from "../ApiConfig.ts"
import { cacheControl } from "../http/cachedJson.ts"
import { prepareFast, send } from "../http/prepared.ts"
import { ReadCache } from "./ReadCache.ts"
import { productIdOf, type ReadKind, readKey } from "./readKeys.ts"

const encoder = new TextEncoder()

/** A product read by its handler: from the cache, or loaded, encoded once and kept. */
export const makeCachedRead = Effect.gen(function* () {
  const cache = yield* ReadCache
  const config = yield* ApiConfig
  return <E>(kind: ReadKind, ref: string, load: Effect.Effect<{ readonly productId: ProductId; readonly body: unknown }, E>) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = readKey(kind, ref)
      const prepared = yield* cache.get(
        key,
        productIdOf(ref),
        Effect.map(load, ({ body, productId }) => ({
          productId,
          prepared: prepareFast(encoder.encode(JSON.stringify(body)), "application/json")
        }))
      )
      const response = send(prepared, request, cacheControl(config.cacheMaxAge))
      cache.recharge(key)
      return response
    })
})
