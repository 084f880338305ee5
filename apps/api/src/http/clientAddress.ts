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
