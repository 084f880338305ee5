/** Parameters shared by several endpoints and tools: pages, cursors and times. */
import { Result, Schema, SchemaTransformation } from "effect"
import { Base64Url } from "effect/encoding"
import { boundedText, DEFAULT_LIMIT, isOffCalendar, MAX_LIMIT, NOT_ON_CALENDAR } from "@productdir/domain"

export const Limit = Schema.Int.check(
  Schema.isBetween({ minimum: 1, maximum: MAX_LIMIT }, { message: `must be a whole number from 1 to ${MAX_LIMIT}` })
).annotate({
  description: `Page size, 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT})`
})

const NOT_A_CURSOR = "must be the next_cursor of a page this service returned"

/** Whether `cursor` is what every cursor the service issues is: a JSON object in base64url. */
const isCursorShaped = (cursor: string): boolean => {
  const text = Base64Url.decodeString(cursor)
  if (Result.isFailure(text)) return false
  try {
    const value: unknown = JSON.parse(text.success)
    return typeof value === "object" && value !== null && !Array.isArray(value)
  } catch {
    return false
  }
}

/**
 * A page's cursor. Its shape is checked with the other parameters, so that a garbled one is named beside
 * every other wrong field; whether it belongs to this listing (its sort, its keys) is the store's to say.
 * Described before its filter: a description given after a filter is lost from the JSON Schema.
 */
export const Cursor = Schema.String.annotate({ description: "Opaque cursor from the previous page's `next_cursor`" }).check(
  Schema.isPattern(/^[A-Za-z0-9_-]{1,2000}$/u, { message: NOT_A_CURSOR }),
  Schema.makeFilter((cursor: string) => isCursorShaped(cursor) || NOT_A_CURSOR)
)

/** Whether `text` is an ISO 8601 timestamp (a date, or a date and time): what `updated_since` takes. */
export const isIsoTimestamp = (text: string): boolean =>
  /^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(new Date(text).getTime()) && !isOffCalendar(text)

/** `updated_since`: checked with the other parameters, so that it is named beside them. */
export const SinceQuery = boundedText(100)
  .annotate({ description: "ISO 8601 timestamp: only products changed since" })
  .check(
    Schema.makeFilter(
      (text: string) =>
        isIsoTimestamp(text) || (isOffCalendar(text) ? NOT_ON_CALENDAR : "must be an ISO 8601 timestamp, e.g. 2026-11-01T00:00:00Z")
    )
  )

/** A version number as a path or a query carries it: digits, read as a whole number from 1. */
export const VersionNumberText = Schema.String.annotate({ description: "A version number: 1 is the product's first" })
  .check(Schema.isPattern(/^[1-9][0-9]{0,8}$/u, { message: "must be a version number: a whole number from 1" }))
  .pipe(Schema.decodeTo(Schema.Int, SchemaTransformation.numberFromString))

/**
 * `limit` as a query carries it: digits, read as the page size. The digits are checked
 * before the number, so `limit=abc` is told what `limit` takes, not how strings parse.
 */
export const LimitQuery = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,9}$/u, { message: `must be a whole number from 1 to ${MAX_LIMIT}` })
).pipe(Schema.decodeTo(Limit, SchemaTransformation.numberFromString))
