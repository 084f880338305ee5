/**
 * What the generated OpenAPI document cannot learn from the schemas, added where
 * it is true of the server (apps/api): the validators and cache headers of every
 * read and its 304, the rate-limit headers of the vote and of registration, the
 * challenge of every 401, `Accept-Encoding` on a 415 (a body sent compressed), optional authentication on the vote, `Retry-After` on every
 * 503 (a store outage, or a server shutting down), `4XX` and `5XX` problems for
 * the statuses any request may meet (405, 408, 431, 500), and query parameters
 * documented as the values they are (`limit` is an integer), not as the strings
 * a query carries. apps/api/test/openapi-conformance.test.ts holds the server to
 * every line of the result.
 */
import { DEFAULT_LIMIT, MAX_LIMIT } from "@productdir/domain"

type Json = Record<string, unknown>

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` })

/** ETag, Cache-Control and Retry-After are on every response that documents them: required, so a client may rely on them. */
const HEADERS: Record<string, Json> = {
  ETag: {
    description: "Validator of this representation: send it back in If-None-Match to get 304 while it is current",
    required: true,
    schema: { type: "string" }
  },
  CacheControl: { description: "How long the response may be reused", required: true, schema: { type: "string" } },
  RateLimitLimit: {
    description: "Requests allowed per window (the tightest limit that applies: votes per minute, registrations per day)",
    schema: { type: "integer", minimum: 0 }
  },
  RateLimitRemaining: { description: "Requests left in the current window", schema: { type: "integer", minimum: 0 } },
  RateLimitReset: { description: "Seconds until the window is full again", schema: { type: "integer", minimum: 0 } },
  WWWAuthenticate: {
    description: 'The challenge: `Bearer realm="productdir"`, with `error="invalid_token"` when a key was sent',
    required: true,
    schema: { type: "string" }
  },
  RetryAfter: { description: "Seconds to wait before retrying", required: true, schema: { type: "integer", minimum: 1 } },
  AcceptEncoding: {
    description: "On the 415 of a content-encoded body: `identity`, the only coding a request body may have (RFC 9110 section 12.5.3)",
    schema: { type: "string", enum: ["identity"] }
  }
}

const PROBLEM = { $ref: "#/components/schemas/ProblemDetails" }

const PROBLEM_SCHEMA: Json = {
  type: "object",
  description: "An RFC 9457 problem: `detail` says what went wrong and what to do",
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer", minimum: 400, maximum: 599 },
    detail: { type: "string" }
  },
  required: ["type", "title", "status", "detail"]
}

/** Reads whose body is the same for everyone: validators, cache headers and 304. */
const NOT_CACHEABLE = new Set(["/healthz", "/readyz", "/metrics"])
const isCacheableRead = (method: string, path: string) => method === "get" && !NOT_CACHEABLE.has(path)

const withHeaders = (response: Json, headers: Record<string, Json>): Json => ({
  ...response,
  headers: { ...(response.headers as Json | undefined), ...headers }
})

const completeOperation = (method: string, path: string, operation: Json): Json => {
  const responses = { ...(operation.responses as Record<string, Json>) }
  for (const [status, response] of Object.entries(responses)) {
    if (status.startsWith("2") && isCacheableRead(method, path)) {
      responses[status] = withHeaders(response, { ETag: ref("ETag"), "Cache-Control": ref("CacheControl") })
    } else if (status.startsWith("2") && method === "get") {
      responses[status] = withHeaders(response, { "Cache-Control": ref("CacheControl") })
    }
    if (status.startsWith("2") && (path === "/vote" || path === "/agents")) {
      responses[status] = withHeaders(responses[status]!, {
        "RateLimit-Limit": ref("RateLimitLimit"),
        "RateLimit-Remaining": ref("RateLimitRemaining"),
        "RateLimit-Reset": ref("RateLimitReset")
      })
    }
    if (status === "429") {
      responses[status] = withHeaders(response, {
        "Retry-After": ref("RetryAfter"),
        "RateLimit-Limit": ref("RateLimitLimit"),
        "RateLimit-Remaining": ref("RateLimitRemaining"),
        "RateLimit-Reset": ref("RateLimitReset")
      })
    }
    if (status === "503") responses[status] = withHeaders(response, { "Retry-After": ref("RetryAfter") })
    if (status === "401") responses[status] = withHeaders(response, { "WWW-Authenticate": ref("WWWAuthenticate") })
    if (status === "415") responses[status] = withHeaders(response, { "Accept-Encoding": ref("AcceptEncoding") })
  }
  if (isCacheableRead(method, path)) {
    responses["304"] = {
      description: "Not Modified: the tag sent in If-None-Match is current; no body",
      headers: { ETag: ref("ETag"), "Cache-Control": ref("CacheControl") }
    }
  }
  // What any request may meet besides its own errors, as ranges: a 405 (with Allow) on a path
  // served under other methods, 408 and 431 from the connection, a 500 we did not foresee.
  responses["4XX"] = {
    description: "Any other client error (405 with Allow, 408, 431): a problem",
    content: { "application/problem+json": { schema: PROBLEM } }
  }
  responses["5XX"] = {
    description: "Any other server error: a problem",
    content: { "application/problem+json": { schema: PROBLEM } }
  }
  const parameters = (operation.parameters as Array<Json> | undefined)?.map((parameter) =>
    parameter.in === "query" && parameter.name === "limit"
      ? {
          ...parameter,
          schema: { type: "integer", minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: `Page size, 1..${MAX_LIMIT}` }
        }
      : parameter
  )
  // Proof of identity is optional where it is accepted: an empty requirement beside the scheme says so.
  const security = operation.security as Array<Json> | undefined
  return {
    ...operation,
    responses,
    ...(parameters === undefined ? {} : { parameters }),
    ...(security === undefined || security.length === 0 ? {} : { security: [{}, ...security] })
  }
}

/** The OpenApi.Transform of the API. */
export const completeDocument = (spec: Json): Json => {
  const paths: Json = {}
  for (const [path, item] of Object.entries(spec.paths as Record<string, Json>)) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) =>
        ["get", "post", "put", "patch", "delete"].includes(method)
          ? [method, completeOperation(method, path, operation as Json)]
          : [method, operation]
      )
    )
  }
  const components = spec.components as Json
  return {
    ...spec,
    info: { ...(spec.info as Json), license: { name: "MIT", identifier: "MIT" }, contact: { name: "The productdir maintainers" } },
    paths,
    components: {
      ...components,
      schemas: { ...(components.schemas as Json), ProblemDetails: PROBLEM_SCHEMA },
      headers: { ...(components.headers as Json | undefined), ...HEADERS }
    }
  }
}
