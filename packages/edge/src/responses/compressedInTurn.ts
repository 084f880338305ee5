/**
 * A response compressed before its turn of the process's work ends (clients/fairShare.ts). The compression middleware
 * (compression.ts) compresses a body as it is written, after the turn: answers made faster than they are
 * compressed would wait in memory, as many as clients have connections open, and enough large MCP batch
 * answers held at once would take the API past its capped heap. Compressed here, within the turn (zlib's
 * thread pool), an answer holds its full size only while it holds a permit; what then waits for the socket is
 * its compressed bytes. The middleware leaves a response that has a Content-Encoding alone; a client that accepts
 * none gets the identity bytes, untouched.
 */
import { Effect } from "effect"
import { HttpBody, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { COMPRESSIBLE } from "./compression.ts"
import { codingFor, compressedFast, MIN_COMPRESS_BYTES } from "./preparedResponse.ts"

const NO_TRANSFORM = /(^|,)\s*no-transform\s*(,|$)/i

/** `response` in the coding `request` accepts best, when it is a body worth compressing; otherwise as it is. */
export const compressedInTurn = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const body = response.body
  if (body._tag !== "Uint8Array" || body.body.byteLength < MIN_COMPRESS_BYTES) return Effect.succeed(response)
  if (response.status < 200 || response.status === 204 || response.status === 206 || response.status === 304)
    return Effect.succeed(response)
  if (response.headers["content-encoding"] !== undefined) return Effect.succeed(response)
  if (NO_TRANSFORM.test(response.headers["cache-control"] ?? "")) return Effect.succeed(response)
  const contentType = response.headers["content-type"] ?? body.contentType
  if (!COMPRESSIBLE.test(contentType)) return Effect.succeed(response)
  const accept = request.headers["accept-encoding"]
  const coding = codingFor(typeof accept === "string" ? accept : undefined)
  if (coding === "identity") return Effect.succeed(response)
  return Effect.map(compressedFast(body.body, coding), (bytes) =>
    HttpServerResponse.removeHeader(
      HttpServerResponse.setBody(
        HttpServerResponse.setHeaders(response, {
          "content-encoding": coding,
          vary: response.headers.vary === undefined ? "Accept-Encoding" : `${response.headers.vary}, Accept-Encoding`
        }),
        HttpBody.uint8Array(bytes, contentType)
      ),
      "content-length"
    )
  )
}
