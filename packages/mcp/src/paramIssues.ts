/**
 * The MCP library refuses a request whose params do not decode with a bare "Invalid method parameters"
 * (-32602), naming nothing: an initialize without protocolVersion, a logging/setLevel to "loud". The
 * request is decoded again here with the library's own schema of its method, and the answer names every
 * wrong field in the words every other refusal of this API uses.
 */
import { Result, Schema } from "effect"
import { McpSchema } from "effect/ai"
import { describeFieldErrors, fieldErrors } from "@productdir/contract"
import { rpcRequestOf } from "./rpcMessage.ts"

export const INVALID_PARAMS = "Invalid method parameters"

/** The bare message said with the fields of `text` (the request) that are wrong; undefined when they cannot be told. */
export const namedParamIssues = (text: string): string | undefined => {
  const message = rpcRequestOf(text)
  const rpc = message === undefined ? undefined : McpSchema.ClientRequestRpcs.requests.get(message.method)
  if (message === undefined || rpc === undefined) return undefined
  const decoded = Schema.decodeUnknownResult(rpc.payloadSchema as Schema.Codec<unknown, unknown>)(message.params ?? {}, { errors: "all" })
  if (Result.isSuccess(decoded)) return undefined
  const errors = fieldErrors(decoded.failure.issue, "params")
  return errors.length === 0 ? undefined : `${INVALID_PARAMS}: ${describeFieldErrors(errors, false)}.`
}
