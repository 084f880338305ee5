/**
 * Requests Node refuses before any route sees them (malformed, headers too
 * large, too slow), answered as problem+json like every other error instead
 * of Node's bare status line, and with a request id of their own, as every
 * response has (there is no request to read a client's id from).
 */
import { randomUUID } from "node:crypto"
import { STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"

const statusOf = (code: string | undefined): { readonly status: number; readonly detail: string } => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, detail: "The request headers are too large." }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, detail: "The request was not received in time; send it again at a normal pace." }
    default:
      return { status: 400, detail: "The request is not valid HTTP/1.1." }
  }
}

/** Node's `clientError` handler. A response that has started cannot be replaced: that socket is only closed. */
export const answerClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  const started = (socket as Duplex & { readonly _httpMessage?: { readonly headersSent?: boolean } })._httpMessage?.headersSent === true
  if (error.code === "ECONNRESET" || !socket.writable || started) {
    socket.destroy()
    return
  }
  const { detail, status } = statusOf(error.code)
  const title = STATUS_CODES[status] ?? "Bad Request"
  const body = JSON.stringify({ type: "about:blank", title, status, detail })
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`
  )
}
