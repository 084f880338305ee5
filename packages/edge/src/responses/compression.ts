/**
 * Compression of the responses that are not prepared already (preparedResponse.ts): the
 * MCP endpoint's JSON, problems, pages made per request. gzip or brotli by
 * Accept-Encoding, from 1 KiB. Server-sent event streams are left alone: a
 * compressor would hold events back until its buffer fills.
 */
import { HttpMiddleware } from "effect/http"
import { FAST_LEVELS, MIN_COMPRESS_BYTES } from "./preparedResponse.ts"

export const COMPRESSIBLE = /^(application\/(json|problem\+json|[a-z0-9.+-]+\+json)|text\/(html|markdown|plain|css|javascript))\b/

export const compress = HttpMiddleware.compression({
  algorithms: ["br", "gzip"],
  minSize: MIN_COMPRESS_BYTES,
  compressible: (contentType) => COMPRESSIBLE.test(contentType),
  levels: FAST_LEVELS
})
