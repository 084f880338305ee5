/**
 * The Model Context Protocol at /mcp (Streamable HTTP), in the API's own
 * process: agents discover it from GET / and /llms.txt. Which browser origins
 * may use it is decided at its edge (edge.ts); the MCP server gets requests
 * without Origin.
 */
import { Layer } from "effect"
import { McpProtocol, McpServer } from "effect/ai"
import { DirectoryTools, VERSION } from "@productdir/contract"
import { SERVICE_NAME } from "../catalogGuide.ts"
import { MCP_PATH } from "./edge.ts"
import { DirectoryToolsLive } from "./handlers.ts"
import { ProductResourcesLive } from "./resources.ts"
import { SearchLinksLive } from "./searchLinks.ts"

export const McpLive = McpServer.layerHttp({
  name: SERVICE_NAME,
  version: VERSION,
  description: "A directory of software products with community trust counters.",
  instructions:
    "Find products with search_products, judge one with get_product and get_problems before choosing it, and vote after using it.",
  path: MCP_PATH,
  // 2026-07-28 is the newest revision (stateless); the others are what today's SDK clients speak.
  protocols: [McpProtocol.v2026_07_28, McpProtocol.v2025_11_25, McpProtocol.v2025_06_18, McpProtocol.v2025_03_26],
  registrations: Layer.mergeAll(
    // The toolkit first: SearchLinksLive keeps its search_products registration and replaces the handler.
    SearchLinksLive.pipe(Layer.provide(McpServer.toolkit(DirectoryTools).pipe(Layer.provide(DirectoryToolsLive)))),
    ProductResourcesLive
  )
})
