/**
 * The middleware of every endpoint that takes input: a request that does not
 * decode is a 400 problem naming each wrong field in plain words (fieldErrors.ts).
 * Declared here so the document and the client know the 400; the server provides
 * its implementation.
 */
import { HttpApiMiddleware } from "effect/http-api"
import { BadRequest } from "./problems.ts"

export class RequestValidation extends HttpApiMiddleware.Service<RequestValidation>()("@productdir/contract/RequestValidation", {
  error: BadRequest
}) {}
