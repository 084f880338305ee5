/**
 * RequestValidation (the contract's middleware) on the server: a request that does
 * not decode becomes a 400 problem with every wrong field named in plain words,
 * and a body's unknown fields listed beside the fields the endpoint takes.
 */
import { Effect, type SchemaAST } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { BadRequest, describeFieldErrors, fieldErrors, RequestValidation } from "@productdir/contract"

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
}) => {
  const ast = endpoint.payload.get("application/json")?.schemas[0]?.ast
  return ast?._tag === "Objects" ? ast.propertySignatures.map((p) => String(p.name)) : []
}

export const RequestValidationLive = HttpApiMiddleware.layerSchemaErrorTransform(RequestValidation, (error, { endpoint }) => {
  const errors = fieldErrors(error.cause.issue, SLOTS[error.kind])
  const unknown = errors.filter((e) => e.message === "is not a field of this request").map((e) => String(e.path.at(-1)))
  const fields = bodyFields(endpoint as never)
  const hint = unknown.length > 0 && fields.length > 0 ? ` This request's fields are ${fields.join(", ")}.` : ""
  // A field can break more than one rule: the count is of fields.
  const wrong = new Set(errors.map((e) => e.path.join("\u0000"))).size
  const count = wrong === 1 ? "1 field is" : `${wrong} fields are`
  return Effect.fail(new BadRequest({ detail: `${count} not right: ${describeFieldErrors(errors)}.${hint}`, errors }))
})
