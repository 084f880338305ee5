/** One JSON-RPC request as the edge reads a POST body for itself (a batch or anything else: undefined). */
import { Predicate } from "effect"

export interface RpcRequest {
  readonly method: string
  readonly params: unknown
  readonly id: unknown
}

export const rpcRequestOf = (text: string): RpcRequest | undefined => {
  let message: unknown
  try {
    message = JSON.parse(text)
  } catch {
    return undefined
  }
  return Predicate.isObject(message) && typeof message.method === "string"
    ? { method: message.method, params: message.params, id: message.id }
    : undefined
}
