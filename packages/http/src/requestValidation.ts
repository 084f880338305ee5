/**
 * RequestValidation (the contract's middleware) on the server: a request that does
 * not decode becomes a 400 problem with every wrong field named in plain words,
 * and a body's unknown fields listed beside the fields the endpoint takes.
 */
import { Effect, Option, Result, Schema, type SchemaAST } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import { BrokenQuery } from "./queryEncoding.ts"
import {
  BadRequest,
  describeFieldErrors,
  fieldErrors,
  fieldNamesOf,
  GIVEN_TWICE,
  distinctIssues,
  MAX_LISTED_ISSUES,
  RequestValidation,
  UNKNOWN_FIELD
} from "@productdir/contract"

const SLOTS = {
  Params: "params",
  Query: "query",
  Headers: "headers",
  Body: "payload",
  Payload: "payload",
  ResponseHeaders: "headers"
} as const

/** The fields an endpoint's JSON body takes, for the message about unknown ones. */
const bodyFields = (endpoint: {
  readonly payload: ReadonlyMap<string, { readonly schemas: ReadonlyArray<{ readonly ast: SchemaAST.AST }> }>
}) => fieldNamesOf(endpoint.payload.get("application/json")?.schemas[0]?.ast)

/** The query parameters `url` gives more than once: the router hands their schema a list, which no parameter takes. */
const repeatedParameters = (url: string): ReadonlySet<string> => {
  const start = url.indexOf("?")
  const seen = new Set<string>()
  const repeated = new Set<string>()
  if (start < 0) return repeated
  for (const name of new URLSearchParams(url.slice(start + 1)).keys()) (seen.has(name) ? repeated : seen).add(name)
  return repeated
}

/**
 * The query's wrong fields of a request whose path parameters were wrong already: the router decodes the path
 * first and stops there, so `/entities/Bad_Slug/problems?limit=0` would name the slug alone. Decoded here as the
 * router decodes a query (every error, a parameter given once or as a list), so the answer names them all.
 */
const queryIssues = (endpoint: { readonly query?: Schema.Codec<unknown, unknown> | undefined }) =>
  Effect.gen(function* () {
    if (endpoint.query === undefined) return []
    const query = yield* Effect.serviceOption(HttpServerRequest.ParsedSearchParams)
    if (Option.isNone(query)) return []
    const decoded = Schema.decodeUnknownResult(Schema.toCodecArrayFromSingle(endpoint.query))(query.value, { errors: "all" })
    return Result.isFailure(decoded) ? fieldErrors(decoded.failure.issue, "query") : []
  })

export const RequestValidationLive = HttpApiMiddleware.layerSchemaErrorTransform(RequestValidation, (error, { endpoint }) =>
  Effect.gen(function* () {
    // A read's broken query parameters (queryEncoding.ts), named beside the rest, and beside wrong path parameters.
    const broken = error.kind === "Query" || error.kind === "Params" ? yield* BrokenQuery : undefined
    const query = error.kind === "Params" ? yield* queryIssues(endpoint as never) : []
    const named = [...fieldErrors(error.cause.issue, SLOTS[error.kind]), ...(broken?.issues ?? []), ...query]
    if (broken !== undefined) broken.named = true
    // `limit=2&limit=3` is not "limit must be text": it is one parameter too many.
    const repeated =
      error.kind === "Query" || error.kind === "Params"
        ? repeatedParameters((yield* HttpServerRequest.HttpServerRequest).url)
        : new Set<string>()
    const all = named.map((e) => (e.path.length === 2 && repeated.has(String(e.path[1])) ? { ...e, message: GIVEN_TWICE } : e))
    // A field can break more than one rule: the count is of fields, all of them; the answer lists the first MAX_LISTED_ISSUES.
    const wrong = new Set(all.map((e) => e.path.join("\u0000"))).size
    const distinct = distinctIssues(all)
    const errors = distinct.slice(0, MAX_LISTED_ISSUES)
    const unknown = errors.filter((e) => e.message === UNKNOWN_FIELD).map((e) => String(e.path.at(-1)))
    const fields = bodyFields(endpoint as never)
    const hint = unknown.length > 0 && fields.length > 0 ? ` This request's fields are ${fields.join(", ")}.` : ""
    const count = wrong === 1 ? "1 field is" : `${wrong} fields are`
    return yield* new BadRequest({ detail: `${count} not right: ${describeFieldErrors(distinct)}.${hint}`, errors })
  })
)
