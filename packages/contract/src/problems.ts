/**
 * Every error the API answers with, as RFC 9457 problems
 * (`application/problem+json`). `type` stays `about:blank`, so `title` is the
 * HTTP status phrase and `detail` says what went wrong and what to do.
 */
import { Schema } from "effect"
import { HttpApiError } from "effect/http-api"

export const FieldError = Schema.Struct({
  path: Schema.Array(Schema.Union([Schema.String, Schema.Number])),
  message: Schema.String
}).annotate({ identifier: "FieldError" })

export class BadRequest extends HttpApiError.Problem<BadRequest>()(
  "BadRequest",
  {
    type: "about:blank",
    status: 400,
    title: "Bad Request"
  },
  { detail: Schema.String, errors: Schema.optionalKey(Schema.Array(FieldError)) }
) {}

export class NotFound extends HttpApiError.Problem<NotFound>()(
  "NotFound",
  {
    type: "about:blank",
    status: 404,
    title: "Not Found"
  },
  { detail: Schema.String }
) {}

export class Gone extends HttpApiError.Problem<Gone>()(
  "Gone",
  {
    type: "about:blank",
    status: 410,
    title: "Gone"
  },
  { detail: Schema.String }
) {}

export class PayloadTooLarge extends HttpApiError.Problem<PayloadTooLarge>()(
  "PayloadTooLarge",
  {
    type: "about:blank",
    status: 413,
    title: "Payload Too Large"
  },
  { detail: Schema.String }
) {}

export class UnsupportedMediaType extends HttpApiError.Problem<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  {
    type: "about:blank",
    status: 415,
    title: "Unsupported Media Type"
  },
  { detail: Schema.String }
) {}

export class TooManyRequests extends HttpApiError.Problem<TooManyRequests>()(
  "TooManyRequests",
  {
    type: "about:blank",
    status: 429,
    title: "Too Many Requests"
  },
  { detail: Schema.String, retry_after: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)) }
) {}

export class ServiceUnavailable extends HttpApiError.Problem<ServiceUnavailable>()(
  "ServiceUnavailable",
  {
    type: "about:blank",
    status: 503,
    title: "Service Unavailable"
  },
  { detail: Schema.String }
) {}

/** A proof of identity that proves nothing (a bad, unknown or revoked API key; a signature that does not verify). */
export class Unauthorized extends HttpApiError.Problem<Unauthorized>()(
  "Unauthorized",
  {
    type: "about:blank",
    status: 401,
    title: "Unauthorized"
  },
  { detail: Schema.String }
) {}

/** A proven caller that may not do this (a publisher changing a product that is not on its domain). */
export class Forbidden extends HttpApiError.Problem<Forbidden>()(
  "Forbidden",
  {
    type: "about:blank",
    status: 403,
    title: "Forbidden"
  },
  { detail: Schema.String }
) {}

/** The state of what was asked for forbids it (a domain already verified, a claim already proven). */
export class Conflict extends HttpApiError.Problem<Conflict>()(
  "Conflict",
  {
    type: "about:blank",
    status: 409,
    title: "Conflict"
  },
  { detail: Schema.String }
) {}

/** A change made against a representation that is no longer current (`If-Match`). */
export class PreconditionFailed extends HttpApiError.Problem<PreconditionFailed>()(
  "PreconditionFailed",
  {
    type: "about:blank",
    status: 412,
    title: "Precondition Failed"
  },
  { detail: Schema.String }
) {}

/** A change that must say which representation it was made against, and did not (`If-Match`). */
export class PreconditionRequired extends HttpApiError.Problem<PreconditionRequired>()(
  "PreconditionRequired",
  {
    type: "about:blank",
    status: 428,
    title: "Precondition Required"
  },
  { detail: Schema.String }
) {}

/** A well-formed request that cannot be done as things are (a claim whose proof is not served). */
export class UnprocessableContent extends HttpApiError.Problem<UnprocessableContent>()(
  "UnprocessableContent",
  {
    type: "about:blank",
    status: 422,
    title: "Unprocessable Content"
  },
  { detail: Schema.String }
) {}
