/**
 * The client's address: the socket's, or, behind N trusted proxies, the N-th
 * `X-Forwarded-For` entry from the right: the one the nearest trusted proxy
 * wrote. Entries further left were written by the client, who can write
 * anything, so they are never used. An entry that is not an IP address (a
 * proxy that misbehaves) is not used either: the socket's address stands.
 */
import { Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { isIP } from "node:net"

/** An entry as proxies write it: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1`, `[2001:db8::1]:443`. */
const ipOf = (entry: string): string | undefined => {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry)
  if (bracketed) return isIP(bracketed[1]!) === 6 ? bracketed[1] : undefined
  if (isIP(entry) !== 0) return entry
  const withPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(entry)
  return withPort && isIP(withPort[1]!) === 4 ? withPort[1] : undefined
}

export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustedHops: number): string => {
  const socket = Option.getOrElse(request.remoteAddress, () => "unknown")
  if (trustedHops <= 0) return socket
  // Node joins repeated X-Forwarded-For headers with ", ": one list either way.
  const chain = (request.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
  if (chain.length === 0) return socket
  // Fewer entries than trusted hops: every entry was written by a trusted proxy; the left-most is the client.
  const entry = chain[Math.max(0, chain.length - trustedHops)]!
  return ipOf(entry) ?? socket
}

/** Headers a proxy adds to what it forwards: a request that carries one came through a proxy. */
const PROXY_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip", "via"] as const

const isLoopback = (address: string) => address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.")

/**
 * Whether the request comes from this machine, straight to the server: no proxy declared (TRUST_PROXY=0), a loopback
 * peer, and none of the headers a proxy adds. A developer trying the API on their own machine; the per-network
 * budgets do not apply to it (domain Caster.local). A proxy on the same machine that forwards without saying so
 * (no X-Forwarded-For, Forwarded, X-Real-IP or Via) would make every client look local: declare it with TRUST_PROXY
 * (docs/operations.md says so), which ends the exemption.
 */
export const isLocalClient = (request: HttpServerRequest.HttpServerRequest, trustedHops: number): boolean =>
  trustedHops <= 0 &&
  isLoopback(Option.getOrElse(request.remoteAddress, () => "")) &&
  PROXY_HEADERS.every((name) => request.headers[name] === undefined)
