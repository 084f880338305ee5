/**
 * Cursors of MCP's list methods. Every list this server has (its tools, resources, resource templates and
 * prompts) is answered in one page, with no `nextCursor`, so no cursor is one it issued; the library would
 * answer a list request that sends one with the whole list, as if the client were where it thought it was.
 * The protocol's pagination says an invalid cursor SHOULD be refused as invalid params (-32602).
 */
import { Predicate } from "effect"
import { rpcRequestOf } from "./rpcMessage.ts"

const LISTS: ReadonlySet<string> = new Set(["tools/list", "resources/list", "resources/templates/list", "prompts/list"])

/** The JSON-RPC error answer to `text` when it is one list request with a cursor; undefined for anything else. */
export const foreignListCursor = (text: string): object | undefined => {
  // Asked of every answered POST: a body that does not say "cursor" is not parsed a second time.
  if (!text.includes('"cursor"')) return undefined
  const message = rpcRequestOf(text)
  if (message === undefined || !LISTS.has(message.method)) return undefined
  const cursor = Predicate.isObject(message.params) ? message.params.cursor : undefined
  if (cursor === undefined) return undefined
  const shown = JSON.stringify(cursor) ?? String(cursor)
  return {
    jsonrpc: "2.0",
    id: typeof message.id === "string" || typeof message.id === "number" ? message.id : null,
    error: {
      code: -32602,
      message: `Invalid params: cursor ${shown.length > 80 ? `${shown.slice(0, 80)}…` : shown} is not one this server issued: ${message.method} answers in one page, with no nextCursor. Send it without a cursor.`
    }
  }
}
