/**
 * The Model Context Protocol at /mcp (Streamable HTTP), in the API's own
 * process: agents discover it from GET / and /llms.txt. Requests that carry
 * an Origin header are accepted only from MCP_ALLOWED_ORIGINS (DNS-rebinding
 * protection); agents calling from servers send none.
 */
import { Effect, Layer } from "effect"
import { McpProtocol, McpServer } from "effect/ai"
import { ApiConfig } from "../ApiConfig.ts"
import { SERVICE_NAME, SERVICE_VERSION } from "../catalogGuide.ts"
import { DirectoryToolsLive } from "./handlers.ts"
import { DirectoryTools } from "./tools.ts"

export const MCP_PATH = "/mcp"

export const McpLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* ApiConfig
  return McpServer.layerHttp({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: "A directory of software products with community trust counters.",
    instructions:
      "Find products with search_products, judge one with get_product and get_problems before choosing it, and vote after using it.",
    path: MCP_PATH,
    protocols: [McpProtocol.v2025_11_25, McpProtocol.v2025_06_18, McpProtocol.v2025_03_26],
    allowedOrigins: config.mcpAllowedOrigins,
    registrations: McpServer.toolkit(DirectoryTools).pipe(Layer.provide(DirectoryToolsLive))
  })
}))
