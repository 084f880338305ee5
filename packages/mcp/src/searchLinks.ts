/**
 * search_products with resource links: besides the page (structured content and
 * its JSON text), the result carries one `resource_link` per product, to
 * `productdir://products/{slug}` (resources.ts), which an MCP client can read
 * without another tool call. A Toolkit result is JSON only, so the toolkit's
 * registration of search_products (its name, schemas and hints) is kept and its
 * handler replaced by this one; both answer through the same `searchProducts`.
 */
import { Effect, Layer, Schema } from "effect"
import { McpSchema, McpServer } from "effect/ai"
import { ProductPage } from "@productdir/domain"
import { SearchProducts } from "@productdir/contract"
import { argumentsProblem } from "./plainArguments.ts"
import { productResourceUri } from "./resources.ts"
import { SearchProductsHandler } from "./handlers.ts"

/** Resource links are content blocks from protocol 2025-06-18 on; older sessions get the page alone. */
const LINKLESS_PROTOCOLS = new Set(["2024-11-05", "2025-03-26"])

export const SearchLinksLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const registry = yield* McpServer.McpServer
    const search = yield* SearchProductsHandler
    const registered = registry.tools.find(({ tool }) => tool.name === SearchProducts.name)
    if (registered === undefined) return yield* Effect.die("search_products must be registered (the toolkit) before its links")
    const decode = Schema.decodeUnknownEffect(SearchProducts.parametersSchema)
    const encode = Schema.encodeEffect(ProductPage)
    yield* registry.addTool({
      tool: registered.tool,
      annotations: registered.annotations,
      handle: (payload) =>
        Effect.gen(function* () {
          // Bad arguments, and arguments the tool does not have, are said as for every other tool (plainArguments.ts).
          const query = yield* decode(payload ?? {}, { errors: "all", onExcessProperty: "error" }).pipe(
            Effect.mapError((error) => argumentsProblem(SearchProducts.name, error.issue, payload))
          )
          const page = yield* search(query)
          const encoded = yield* encode(page).pipe(Effect.mapError((error) => new McpSchema.InternalError({ message: error.message })))
          const context = yield* McpSchema.McpRequestContext
          const links = LINKLESS_PROTOCOLS.has(context.protocolVersion)
            ? []
            : page.items.map((item) => ({
                type: "resource_link" as const,
                uri: productResourceUri(item.slug),
                name: item.slug,
                title: item.name,
                description: item.summary,
                mimeType: "application/json"
              }))
          return new McpSchema.CallToolResult({
            structuredContent: encoded,
            content: [{ type: "text", text: JSON.stringify(encoded) }, ...links]
          })
        }).pipe(
          Effect.catchTag("ToolProblem", (problem) =>
            Effect.succeed(new McpSchema.CallToolResult({ isError: true, content: [{ type: "text", text: problem.message }] }))
          )
        )
    })
  })
)
