/**
 * A2A on the wire: the SendMessage request as this agent reads it (A2A 1.0;
 * 0.3's forms are read by protocol03.ts into the same request), the errors it
 * answers (one table for both bindings and both versions, §5.4: a JSON-RPC
 * code, an HTTP status and google.rpc status for HTTP+JSON, and the details
 * that name what was wrong), the envelopes of each, and which version a
 * request speaks.
 */
import { Schema, type SchemaIssue } from "effect"
import { describeFieldErrors, fieldErrors, fieldName } from "@productdir/contract"
import type { ExactId } from "@productdir/edge/jsonRpcIds"

/** What went wrong, as A2A (and JSON-RPC) name it; the product's own refusals are ours. */
export const A2aErrorKind = Schema.Literals([
  "ParseError",
  "InvalidRequest",
  "MethodNotFound",
  "InvalidParams",
  "TaskNotFound",
  "PushNotificationNotSupported",
  "UnsupportedOperation",
  "ExtendedCardNotConfigured",
  "ContentTypeNotSupported",
  "VersionNotSupported",
  "ProductNotFound",
  "Unauthenticated",
  "RateLimited",
  "Unavailable",
  "BodyTooLarge",
  "BodyNotPlain"
])
export type A2aErrorKind = typeof A2aErrorKind.Type

export const FieldViolation = Schema.Struct({ field: Schema.String, description: Schema.String })
export type FieldViolation = typeof FieldViolation.Type

export class A2aError extends Schema.TaggedError<A2aError>()("A2aError", {
  kind: A2aErrorKind,
  message: Schema.String,
  /** Every wrong field of the request (google.rpc.BadRequest). */
  violations: Schema.optionalKey(Schema.Array(FieldViolation)),
  /** HTTP headers the answer carries: a 401's challenge, a 429's Retry-After. */
  headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
}) {}

interface Mapping {
  readonly code: number
  /** The HTTP status of an HTTP+JSON answer (and of a JSON-RPC answer when it is not 200). */
  readonly http: number
  readonly status: string
  /** ErrorInfo's reason: A2A's errors in domain a2a-protocol.org, ours in productdir. */
  readonly reason?: { readonly reason: string; readonly domain: string }
  /** A JSON-RPC answer keeps the HTTP status (authentication, rate limits, an unavailable store). */
  readonly httpLevel?: boolean
}

const A2A_DOMAIN = "a2a-protocol.org"
const OUR_DOMAIN = "productdir"

const MAPPINGS: Record<A2aErrorKind, Mapping> = {
  ParseError: { code: -32700, http: 400, status: "INVALID_ARGUMENT" },
  InvalidRequest: { code: -32600, http: 400, status: "INVALID_ARGUMENT" },
  MethodNotFound: { code: -32601, http: 404, status: "NOT_FOUND" },
  InvalidParams: { code: -32602, http: 400, status: "INVALID_ARGUMENT" },
  TaskNotFound: { code: -32001, http: 404, status: "NOT_FOUND", reason: { reason: "TASK_NOT_FOUND", domain: A2A_DOMAIN } },
  PushNotificationNotSupported: {
    code: -32003,
    http: 400,
    status: "FAILED_PRECONDITION",
    reason: { reason: "PUSH_NOTIFICATION_NOT_SUPPORTED", domain: A2A_DOMAIN }
  },
  UnsupportedOperation: {
    code: -32004,
    http: 400,
    status: "FAILED_PRECONDITION",
    reason: { reason: "UNSUPPORTED_OPERATION", domain: A2A_DOMAIN }
  },
  // A2A 0.3's answer to agent/getAuthenticatedExtendedCard when the card has none (1.0 answers UnsupportedOperation).
  ExtendedCardNotConfigured: {
    code: -32007,
    http: 400,
    status: "FAILED_PRECONDITION",
    reason: { reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED", domain: A2A_DOMAIN }
  },
  ContentTypeNotSupported: {
    code: -32005,
    http: 400,
    status: "INVALID_ARGUMENT",
    reason: { reason: "CONTENT_TYPE_NOT_SUPPORTED", domain: A2A_DOMAIN }
  },
  VersionNotSupported: {
    code: -32009,
    http: 400,
    status: "FAILED_PRECONDITION",
    reason: { reason: "VERSION_NOT_SUPPORTED", domain: A2A_DOMAIN }
  },
  // A product the message names that is not in the directory: the parameters are wrong (JSON-RPC), the resource is not there (HTTP).
  ProductNotFound: { code: -32602, http: 404, status: "NOT_FOUND", reason: { reason: "PRODUCT_NOT_FOUND", domain: OUR_DOMAIN } },
  // Server errors of JSON-RPC's own range, outside A2A's -32001..-32099.
  Unauthenticated: {
    code: -32000,
    http: 401,
    status: "UNAUTHENTICATED",
    reason: { reason: "UNAUTHENTICATED", domain: OUR_DOMAIN },
    httpLevel: true
  },
  RateLimited: {
    code: -32000,
    http: 429,
    status: "RESOURCE_EXHAUSTED",
    reason: { reason: "RATE_LIMITED", domain: OUR_DOMAIN },
    httpLevel: true
  },
  Unavailable: { code: -32603, http: 503, status: "UNAVAILABLE", httpLevel: true },
  // A body refused before it is read: over the size every door takes (413), or encoded, or in a charset other than
  // UTF-8 (415). An invalid request to JSON-RPC, with the HTTP status the rest of the API answers it with.
  BodyTooLarge: { code: -32600, http: 413, status: "INVALID_ARGUMENT", httpLevel: true },
  BodyNotPlain: { code: -32600, http: 415, status: "INVALID_ARGUMENT", httpLevel: true }
}

/** The google.rpc details of an error: what was wrong (BadRequest) and which error it is (ErrorInfo). */
const detailsOf = (error: A2aError): ReadonlyArray<Record<string, unknown>> => {
  const mapping = MAPPINGS[error.kind]
  return [
    ...(mapping.reason === undefined ? [] : [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", ...mapping.reason }]),
    ...(error.violations === undefined || error.violations.length === 0
      ? []
      : [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: error.violations }])
  ]
}

/** A request's id, answered as it came: an integer past 2^53 as its own digits (packages/edge/src/jsonRpcIds.ts). */
export type JsonRpcId = string | number | ExactId | null

/** A JSON-RPC error answer (§9.5): its HTTP status, and its body. */
export const jsonRpcError = (error: A2aError, id: JsonRpcId) => {
  const mapping = MAPPINGS[error.kind]
  const details = detailsOf(error)
  return {
    status: mapping.httpLevel === true ? mapping.http : 200,
    body: {
      jsonrpc: "2.0",
      id,
      error: { code: mapping.code, message: error.message, ...(details.length > 0 ? { data: details } : {}) }
    }
  }
}

/** An HTTP+JSON error answer (§11.6): google.rpc.Status under `error`. */
export const restError = (error: A2aError) => {
  const mapping = MAPPINGS[error.kind]
  return {
    status: mapping.http,
    body: { error: { code: mapping.http, status: mapping.status, message: error.message, details: detailsOf(error) } }
  }
}

// ---- the request ---------------------------------------------------------------

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

/** A part as sent: one of text, raw, url or data (checked by skills.ts), with its media type. */
export const Part = Schema.Struct({
  text: Schema.optionalKey(Schema.String),
  raw: Schema.optionalKey(Schema.String),
  url: Schema.optionalKey(Schema.String),
  data: Schema.optionalKey(Schema.Unknown),
  mediaType: Schema.optionalKey(Schema.String),
  filename: Schema.optionalKey(Schema.String),
  metadata: Schema.optionalKey(JsonObject)
})
export type Part = typeof Part.Type

export const Message = Schema.Struct({
  messageId: Schema.String.check(Schema.isMinLength(1, { message: "must not be empty: the sender names each message" })),
  contextId: Schema.optionalKey(Schema.String),
  taskId: Schema.optionalKey(Schema.String),
  role: Schema.Literal("ROLE_USER").annotate({ message: 'must be "ROLE_USER": a message to this agent comes from its user' }),
  parts: Schema.Array(Part).check(
    Schema.isMinLength(1, { message: "must hold at least one part: your request in plain words, or a data part naming a skill" })
  ),
  metadata: Schema.optionalKey(JsonObject),
  extensions: Schema.optionalKey(Schema.Array(Schema.String)),
  referenceTaskIds: Schema.optionalKey(Schema.Array(Schema.String))
})
export type Message = typeof Message.Type

/** SendMessageRequest (§3.2.1). Fields this agent does not know are ignored (§5.7). */
export const SendMessageRequest = Schema.Struct({
  tenant: Schema.optionalKey(Schema.String),
  message: Message,
  configuration: Schema.optionalKey(
    Schema.Struct({
      acceptedOutputModes: Schema.optionalKey(Schema.Array(Schema.String)),
      taskPushNotificationConfig: Schema.optionalKey(Schema.Unknown),
      historyLength: Schema.optionalKey(Schema.Number),
      returnImmediately: Schema.optionalKey(Schema.Boolean)
    })
  ),
  metadata: Schema.optionalKey(JsonObject)
})
export type SendMessageRequest = typeof SendMessageRequest.Type

/** A message's answer, whichever version and binding carries it: one text, one data part (each unless the client takes none of it). */
export interface Reply {
  readonly messageId: string
  readonly contextId: string
  readonly text: string | undefined
  readonly data: unknown
  readonly skill: string
}

/**
 * The field violations of a decoding failure, under `prefix` (`params`, `message.parts[0].data`); `sent`, what
 * was decoded, lets the rules between fields be named beside the other wrong fields.
 */
export const violationsOf = (issue: SchemaIssue.Issue, prefix: ReadonlyArray<string | number> = [], sent?: unknown) =>
  fieldErrors(issue, undefined, sent).map((e) => ({ path: [...prefix, ...e.path], message: e.message }))

/** An InvalidParams error naming every wrong field. */
export const invalidParams = (errors: ReadonlyArray<{ readonly path: ReadonlyArray<string | number>; readonly message: string }>) =>
  new A2aError({
    kind: "InvalidParams",
    message: `Invalid parameters: ${describeFieldErrors(errors, false)}`,
    violations: errors.map((e) => ({ field: fieldName(e.path), description: e.message }))
  })

/**
 * The A2A version of a request (§3.6.2): its A2A-Version header, else its query parameter; none means 0.3. The
 * parameter given twice with different versions is both of them, as a header sent twice is ("0.3, 1.0"), which no
 * dialect is: the request is refused naming them, never served as whichever came first.
 */
export const requestedVersion = (headers: Readonly<Record<string, string | undefined>>, url: string): string => {
  const header = headers["a2a-version"]?.trim()
  if (header !== undefined && header !== "") return header
  const query = url.includes("?") ? new URLSearchParams(url.slice(url.indexOf("?") + 1)).getAll("A2A-Version") : []
  const versions = [...new Set(query.map((version) => version.trim()).filter((version) => version !== ""))]
  return versions.length > 0 ? versions.join(", ") : "0.3"
}

/** The A2A versions served: 1.0, and 0.3 for the clients that have not moved (protocol03.ts). */
export type Dialect = "1.0" | "0.3"

/** The dialect a version names (a patch version does not change the protocol), or the error refusing it. */
export const dialectOf = (version: string): Dialect | A2aError => {
  if (/^1\.0(\.\d+)?$/u.test(version)) return "1.0"
  if (/^0\.3(\.\d+)?$/u.test(version)) return "0.3"
  return new A2aError({
    kind: "VersionNotSupported",
    message: `This agent speaks A2A 1.0 (send A2A-Version: 1.0) and A2A 0.3 (no A2A-Version, or 0.3); the request asked for ${version}.`
  })
}

// ---- A2A 0.3's error envelopes --------------------------------------------------

/**
 * 0.3's error `data` (free-form there): which error it is and every wrong field, as an object
 * (0.3's HTTP+JSON clients take only an object).
 */
const legacyData = (error: A2aError): Record<string, unknown> | undefined => {
  const mapping = MAPPINGS[error.kind]
  const data = {
    ...(mapping.reason === undefined ? {} : { reason: mapping.reason.reason }),
    ...(error.violations === undefined || error.violations.length === 0 ? {} : { fieldViolations: error.violations })
  }
  return Object.keys(data).length === 0 ? undefined : data
}

/** A 0.3 JSON-RPC error answer: the same codes and HTTP statuses as 1.0's, `data` as 0.3 takes it. */
export const legacyJsonRpcError = (error: A2aError, id: JsonRpcId) => {
  const mapping = MAPPINGS[error.kind]
  const data = legacyData(error)
  return {
    status: mapping.httpLevel === true ? mapping.http : 200,
    body: { jsonrpc: "2.0", id, error: { code: mapping.code, message: error.message, ...(data === undefined ? {} : { data }) } }
  }
}

/** A 0.3 HTTP+JSON error answer: the bare `{code, message, data}` 0.3 sends, with the HTTP status of 1.0's table. */
export const legacyRestError = (error: A2aError) => {
  const mapping = MAPPINGS[error.kind]
  const data = legacyData(error)
  return { status: mapping.http, body: { code: mapping.code, message: error.message, ...(data === undefined ? {} : { data }) } }
}
