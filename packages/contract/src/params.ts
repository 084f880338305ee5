/** Parameters shared by several endpoints and tools: pages and cursors. */
import { Schema, SchemaTransformation } from "effect"
import { DEFAULT_LIMIT, MAX_LIMIT } from "@productdir/domain"

export const Limit = Schema.Int.check(
  Schema.isBetween({ minimum: 1, maximum: MAX_LIMIT }, { message: `must be a whole number from 1 to ${MAX_LIMIT}` })
).annotate({
  description: `Page size, 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT})`
})

export const Cursor = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9_-]{1,2000}$/u, { message: "must be the next_cursor of a page this service returned" })
).annotate({ description: "Opaque cursor from the previous page's `next_cursor`" })

/**
 * `limit` as a query carries it: digits, read as the page size. The digits are checked
 * before the number, so `limit=abc` is told what `limit` takes, not how strings parse.
 */
export const LimitQuery = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,9}$/u, { message: `must be a whole number from 1 to ${MAX_LIMIT}` })
).pipe(Schema.decodeTo(Limit, SchemaTransformation.numberFromString))
