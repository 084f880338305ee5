/**
 * Products as MCP resources: `productdir://products/{slug}` reads a product's
 * agent view (the same document as GET /entities/{slug}?format=agent), and its
 * `slug` completes from the catalog by prefix. There is no list of every
 * product (a catalog does not fit in a resource list): agents reach products
 * through search_products, whose results link here (searchLinks.ts). A
 * product's resource can be subscribed to (subscriptions.ts).
 *
 * The template is registered with the MCP server's registry directly, not with
 * its `resource` helper: the helper answers a completion's `total` as the
 * number of values sent and `hasMore: false`, and a catalog has more slugs
 * than a completion shows.
 */
import { Context, Effect, Layer } from "effect"
import { McpSchema, McpServer } from "effect/ai"
import { HttpServerRequest } from "effect/http"
import { CatalogStore, canonicalRef, isProductRef } from "@productdir/domain"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { makeCachedDocument } from "@productdir/read-cache/cachedReads"
import { MCP_DOOR, type Refusal, refusingAt } from "@productdir/edge/refusals"
import { absoluteLinks, baseUrlOf } from "@productdir/edge/links"

/**
 * How a resource handler says the resource does not exist. The MCP library answers every failure of a
 * resource read as an internal error (-32603); the protocol's code for an unknown resource is -32002 up to
 * 2025-11-25, and -32602 (invalid params) from 2026-07-28, which forbids -32002 (SEP-2164), so a read that
 * fails with this prefix is answered with its revision's code, and the prefix is dropped.
 */
export const RESOURCE_NOT_FOUND = "Resource not found: "

// How a resource read answers each kind of refusal (../refusals.ts says what each is, in its words): a product not
// there, or gone, is a resource not found; anything else is said as it is.
const notThere = (refused: Refusal) => Effect.fail(`${RESOURCE_NOT_FOUND}${refused.detail}`)
const said = (refused: Refusal) => Effect.fail(refused.detail)
const resourceRefusals = refusingAt(MCP_DOOR, { notFound: notThere, gone: notThere, invalid: said, unavailable: said, revoked: said })

export const PRODUCT_RESOURCE_SCHEME = "productdir://products/"
export const PRODUCT_RESOURCE_TEMPLATE = `${PRODUCT_RESOURCE_SCHEME}{slug}`

/** The resource URI of a product. */
export const productResourceUri = (slug: string): string => `${PRODUCT_RESOURCE_SCHEME}${encodeURIComponent(slug)}`

/** The product (its slug or id) a resource URI names; undefined when the URI is not a product's. */
export const productRefOf = (uri: string): string | undefined => {
  if (!uri.startsWith(PRODUCT_RESOURCE_SCHEME)) return undefined
  const rest = uri.slice(PRODUCT_RESOURCE_SCHEME.length)
  if (rest === "" || /[/?#]/.test(rest)) return undefined
  let ref: string
  try {
    ref = decodeURIComponent(rest)
  } catch {
    return undefined
  }
  // Only what could name a product reaches the store: a NUL in a URI would have PostgreSQL refuse the text,
  // a 503 for bad input.
  return isProductRef(ref) ? canonicalRef(ref) : undefined
}

/** How many slugs a completion offers (MCP allows 100; an agent reads a short list). */
export const SLUG_COMPLETIONS = 20
/** Up to how many slugs a completion counts for its `total`; past this it says only that there are more. */
export const SLUGS_COUNTED = 1_000

export const ProductResourcesLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const registry = yield* McpServer.McpServer
    const catalog = yield* CatalogStore
    const config = yield* ApiConfig
    // The same prepared reads as HTTP's (the read cache).
    const cached = yield* makeCachedDocument

    const completeSlug = (prefix: string) =>
      catalog.slugsStartingWith(prefix, SLUGS_COUNTED + 1).pipe(
        Effect.map((slugs) => ({
          completion: {
            values: slugs.slice(0, SLUG_COMPLETIONS),
            // Counted exactly up to SLUGS_COUNTED (one index range read); past it the total is left out, as MCP allows.
            ...(slugs.length > SLUGS_COUNTED ? {} : { total: slugs.length }),
            hasMore: slugs.length > SLUG_COMPLETIONS
          }
        })),
        // A store that cannot answer offers nothing rather than failing the agent's typing.
        Effect.orElseSucceed(() => ({ completion: { values: [], total: 0, hasMore: false } }))
      )

    const read = (uri: string, ref: string) =>
      Effect.all([cached("view", ref), Effect.serviceOption(HttpServerRequest.HttpServerRequest)]).pipe(
        Effect.map(([view, request]) => ({
          contents: [{ uri, mimeType: "application/json", text: JSON.stringify(absoluteLinks(view, baseUrlOf(config.publicUrl, request))) }]
        })),
        Effect.catchTags({
          ProductNotFound: resourceRefusals.ProductNotFound,
          ProductRemoved: resourceRefusals.ProductRemoved,
          StoreError: resourceRefusals.StoreError
        }),
        // The URI not found is said as data, as the protocol's example of the error does.
        Effect.mapError(
          (message) => new McpSchema.InternalError({ message, ...(message.startsWith(RESOURCE_NOT_FOUND) ? { data: { uri } } : {}) })
        )
      )

    yield* registry.addResourceTemplate({
      template: new McpSchema.ResourceTemplate({
        uriTemplate: PRODUCT_RESOURCE_TEMPLATE,
        name: "product",
        description:
          "One product's decision view: what it does, when to avoid it, pricing, trust and its top known problems. The slug (or id) comes from search_products; the slug completes by prefix. Subscribe to hear when it changes (a vote, an import).",
        mimeType: "application/json"
      }),
      // The library's URI router: the literal's ":" doubled, the parameter by its position.
      routerPath: `${PRODUCT_RESOURCE_SCHEME.replace(":", "::")}:0`,
      completions: { slug: completeSlug },
      annotations: Context.empty(),
      handle: (uri) => {
        const ref = productRefOf(uri)
        // A URI with a query, a fragment or a path after the slug names no product: saying that no product has
        // the slug would be false when one has.
        return ref !== undefined
          ? read(uri, ref)
          : Effect.fail(
              new McpSchema.InternalError({
                data: { uri },
                message: `${RESOURCE_NOT_FOUND}No resource is at ${JSON.stringify(uri.length > 200 ? `${uri.slice(0, 200)}…` : uri)}: a product's URI is ${PRODUCT_RESOURCE_TEMPLATE}, its slug or id and nothing after it (no query, fragment or further path).`
              })
            )
      }
    })
  })
)
