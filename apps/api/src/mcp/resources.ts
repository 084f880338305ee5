/**
 * Products as MCP resources: `productdir://products/{slug}` reads a product's
 * agent view (the same document as GET /entities/{slug}?format=agent), and its
 * `slug` completes from the catalog by prefix. There is no list of every
 * product (a catalog does not fit in a resource list): agents reach products
 * through search_products, whose results link here (searchLinks.ts).
 */
import { Effect, Layer, Schema } from "effect"
import { McpSchema, McpServer } from "effect/ai"
import { HttpServerRequest } from "effect/http"
import { Directory } from "@productdir/usecases"
import { ApiConfig } from "../ApiConfig.ts"
import { makeCachedDocument } from "../cache/cachedReads.ts"
import { MCP_DOOR, refusals } from "../refusals.ts"
import { RESOURCE_NOT_FOUND } from "./edge.ts"
import { absoluteLinks, baseUrlOf } from "./links.ts"

export const PRODUCT_RESOURCE_SCHEME = "productdir://products/"

/** The resource URI of a product. */
export const productResourceUri = (slug: string): string => `${PRODUCT_RESOURCE_SCHEME}${encodeURIComponent(slug)}`

export const ProductResourcesLive = Layer.unwrap(
  Effect.gen(function* () {
    const directory = yield* Directory.Directory
    const config = yield* ApiConfig
    // The same prepared reads as HTTP's (the read cache).
    const cached = yield* makeCachedDocument
    return McpServer.resource`productdir://products/${McpSchema.param("slug", Schema.String)}`({
      name: "product",
      description:
        "One product's decision view: what it does, when to avoid it, pricing, trust and its top known problems. The slug (or id) comes from search_products; the slug completes by prefix.",
      mimeType: "application/json",
      completion: {
        // A store that cannot answer offers nothing rather than failing the agent's typing.
        slug: (prefix) =>
          directory.completeSlug(prefix).pipe(
            Effect.map((slugs) => [...slugs]),
            Effect.orElseSucceed(() => [])
          )
      },
      content: (uri, slug) =>
        Effect.all([cached("view", decodeURIComponent(slug)), Effect.serviceOption(HttpServerRequest.HttpServerRequest)]).pipe(
          Effect.map(([view, request]) => ({
            contents: [
              { uri, mimeType: "application/json", text: JSON.stringify(absoluteLinks(view, baseUrlOf(config.publicUrl, request))) }
            ]
          })),
          Effect.catchTags({
            ProductNotFound: (e) => Effect.fail(new Error(`${RESOURCE_NOT_FOUND}${refusals.ProductNotFound(e, MCP_DOOR)}`)),
            ProductRemoved: (e) => Effect.fail(new Error(`${RESOURCE_NOT_FOUND}${refusals.ProductRemoved(e)}`)),
            StoreError: (e) => Effect.fail(new Error(refusals.StoreError(e)))
          })
        )
    })
  })
)
