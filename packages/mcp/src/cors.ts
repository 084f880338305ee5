/**
 * CORS for /mcp. The browser clients the edge lets in (edge.ts: the server's
 * own origin, a loopback origin of a loopback server, MCP_ALLOWED_ORIGINS) are
 * on another origin than the server whenever they are not its own pages, so a
 * browser asks first (a preflight, OPTIONS) and then reads an answer only when
 * it says that origin may: without these headers an allowed origin could not
 * use the endpoint at all. The headers an MCP client must read (its session's
 * id, the protocol version, a 401's challenge) are exposed to it. An origin the
 * edge refuses gets none of this: its 403 comes first.
 */
import { HttpServerResponse } from "effect/http"

/** The request headers an MCP client sends (the transport's, a key, a resumed stream's last event). */
/**
 * Every header an MCP client sends: the session revisions' and the stateless 2026-07-28's (`Mcp-Method`, `Mcp-Name`,
 * which that revision requires: without them a browser could send no request of it), and a signed agent's
 * (RFC 9421: `Signature`, `Signature-Input`, `Signature-Agent`, `Content-Digest`).
 */
const ALLOWED_HEADERS = [
  "Accept",
  "Authorization",
  "Content-Digest",
  "Content-Type",
  "Last-Event-ID",
  "MCP-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
  "Mcp-Session-Id",
  "Signature",
  "Signature-Agent",
  "Signature-Input",
  "X-Request-Id"
].join(", ")
/** The response headers an MCP client reads, beyond the few a browser always shows. */
const EXPOSED_HEADERS = "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After, X-Request-Id"
/** How long a browser may keep a preflight's answer: ten minutes. */
const MAX_AGE_SECONDS = "600"

/** Whether a request is a browser's preflight: OPTIONS naming the method it wants to send. */
export const isPreflight = (method: string, headers: Readonly<Record<string, string | undefined>>): boolean =>
  method === "OPTIONS" && headers.origin !== undefined && headers["access-control-request-method"] !== undefined

/** The answer to an allowed origin's preflight: the methods the endpoint takes and the headers it reads. */
export const preflight = (origin: string, methods: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.empty({
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": methods,
      "access-control-allow-headers": ALLOWED_HEADERS,
      "access-control-max-age": MAX_AGE_SECONDS,
      vary: "Origin"
    }
  })

/** `response` as an allowed origin may read it. */
export const allowingOrigin = (response: HttpServerResponse.HttpServerResponse, origin: string): HttpServerResponse.HttpServerResponse => {
  const vary = response.headers.vary
  return HttpServerResponse.setHeaders(response, {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": EXPOSED_HEADERS,
    vary: vary === undefined || vary === "" ? "Origin" : `${vary}, Origin`
  })
}
