/**
 * Requests Node refuses before any route sees them (malformed, headers too
 * large, too slow), answered as problem+json like every other error instead
 * of Node's bare status line, and with a request id of their own, as every
 * response has (there is no request to read a client's id from).
 */
import { randomUUID } from "node:crypto"
import { STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"

/** Longer than any header line a client sends but a URI: the first line of a head past this is its request line's fault. */
const LONGEST_HEADER_LINE = 8_192

/**
 * Whether the bytes Node gave up on show a request line too long: they begin one (a method, a space, a target)
 * and end no line, or their first line is past any header's length. Node says "headers too large" of a request's
 * whole head, its request line included, so a URI of 20,000 characters would be answered 431, a status about header
 * fields; it is a URI too long (414). Bytes from the middle of a head (a request that came in many packets)
 * cannot tell which: they stay 431.
 */
const inRequestLine = (packet: Buffer | undefined): boolean => {
  if (packet === undefined || !REQUEST_LINE_START.test(packet.subarray(0, 32).toString("latin1"))) return false
  const end = packet.indexOf("\r\n")
  return end === -1 || end > LONGEST_HEADER_LINE
}
const REQUEST_LINE_START = /^[A-Z]{3,10} [^ ]/

const statusOf = (
  error: Error & { readonly code?: string; readonly rawPacket?: Buffer }
): { readonly status: number; readonly detail: string } => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return inRequestLine(error.rawPacket)
        ? {
            status: 414,
            detail:
              "The request's URI is too long: a request's head may take 16 KiB. No path or query of this API needs that many (an id or a slug is at most 128 characters)."
          }
        : { status: 431, detail: "The request headers are too large: a request's head may take 16 KiB." }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, detail: "The request was not received in time; send it again at a normal pace." }
    default:
      return { status: 400, detail: "The request is not valid HTTP/1.1." }
  }
}

/** Node's `clientError` handler. A response that has started cannot be replaced: that socket is only closed. */
export const answerClientError = (error: Error & { readonly code?: string; readonly rawPacket?: Buffer }, socket: Duplex): void => {
  const started = (socket as Duplex & { readonly _httpMessage?: { readonly headersSent?: boolean } })._httpMessage?.headersSent === true
  if (error.code === "ECONNRESET" || !socket.writable || started) {
    socket.destroy()
    return
  }
  const { detail, status } = statusOf(error)
  const title = STATUS_CODES[status] ?? "Bad Request"
  const body = JSON.stringify({ type: "about:blank", title, status, detail })
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`
  )
}
