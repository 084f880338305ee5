/** Request bodies above 16 KiB are refused (413) before they are read whole. */
import { ByteSize, Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"

export const MAX_BODY = ByteSize.kibibytes(16)

export const BodyLimit = HttpRouter.middleware(
  (httpEffect) => Effect.provideService(httpEffect, HttpServerRequest.MaxBodySize, MAX_BODY),
  { global: true }
)
