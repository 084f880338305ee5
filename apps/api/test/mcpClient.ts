/** The official MCP SDK's client connected to a test server's /mcp, closed when the test's scope ends. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"

export const connectMcp = (base: string, name = "productdir-test") =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name, version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )
