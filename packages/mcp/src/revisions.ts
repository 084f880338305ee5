/**
 * The MCP revisions /mcp speaks, and the rule for the MCP-Protocol-Version
 * header on a session's requests.
 */
import { McpProtocol } from "effect/ai"

// 2026-07-28 is the newest revision (stateless); the others are what today's SDK clients speak.
export const PROTOCOLS = [McpProtocol.v2026_07_28, McpProtocol.v2025_11_25, McpProtocol.v2025_06_18, McpProtocol.v2025_03_26] as const

/** The revisions served in sessions (initialize, then MCP-Session-Id). */
export const SESSION_REVISIONS: ReadonlySet<string> = new Set(
  PROTOCOLS.filter((protocol) => protocol.runtime._tag === "Stateful").map((protocol) => protocol.protocolVersion)
)

/**
 * Whether a session request's MCP-Protocol-Version header is one the server
 * answers under the session's own revision instead of refusing. The MCP
 * specification asks for 400 only when the header is invalid or unsupported
 * (2025-11-25, basic/transports, "Protocol Version Header"); the MCP library
 * also refuses a supported revision that differs from the negotiated one
 * (-32020), which the official conformance suite sends (2025-03-26 on a
 * 2025-11-25 session). Such a request is served as the session's revision: the
 * header is dropped, and the library then uses the revision initialize agreed.
 * An unsupported one is still refused with 400.
 */
export const answeredAsSession = (headers: Readonly<Record<string, string | undefined>>): boolean => {
  const version = headers["mcp-protocol-version"]
  return headers["mcp-session-id"] !== undefined && version !== undefined && SESSION_REVISIONS.has(version)
}

/** The session revisions whose POSTs may carry a JSON-RPC batch (2025-03-26; removed in 2025-06-18). */
export const BATCH_REVISIONS: ReadonlySet<string> = new Set(
  PROTOCOLS.filter((protocol) => protocol.runtime._tag === "Stateful" && protocol.runtime.transport.jsonRpc.acceptsBatches).map(
    (protocol) => protocol.protocolVersion
  )
)
