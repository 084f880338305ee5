/**
 * JSON-RPC ids a double cannot carry back. `JSON.parse` reads an integer such as 12345678901234567890 as the
 * nearest double (12345678901234567000), and a number past a double's range such as 1e400 as Infinity, which JSON
 * writes as null: an answer written from either carries an id the request did not, and a client that matches
 * answers to requests by id waits for one that never comes. JSON-RPC allows any number as an id, and clients with
 * 64-bit counters or random ids send such ones. So the id is read as it was spelled (`JSON.parse`'s source text,
 * Node 21 and later): A2A's door answers with it written back the same (`JSON.rawJSON`); the MCP library parses
 * the body itself and would answer another id, so the MCP edge refuses such an id, plainly, before it does.
 * (A fraction with more digits than a double keeps, 0.12345678901234567891, comes back as the double the client's
 * own reader makes of it: matched. JSON-RPC advises against fractional ids anyway.)
 */

/** An id written into an answer as the request spelled it: `JSON.stringify` writes its text as it is. */
export interface ExactId {
  readonly rawJSON: string
}

/** What `JSON.parse` hands a reviver for a primitive, past its key and value (Node 21+; TypeScript's lib has no name for it). */
interface ReviverContext {
  readonly source?: string
}

// Both are Node's (V8's JSON.parse source text access), on every Node the apps run on (22.19 or later).
const { rawJSON } = JSON as unknown as { readonly rawJSON: (text: string) => ExactId }

/** An integer literal: the ids that lose digits are counters and random integers; one with a fraction or an exponent is left as JSON.parse reads it. */
const INTEGER = /^-?\d+$/u

/**
 * Sixteen digits in a row, or an exponent of three digits: no integer past 2^53 - 1 is written with fewer digits,
 * and no number past a double's range (about 1.8e308) without one or the other, so a body with neither (nearly
 * every one) needs no reviver.
 */
const LONG_NUMBER = /\d{16}|[eE][+-]?\d{3}/u

/** Whether JSON.parse's `parsed` of the id spelled `source` answers as another id: digits lost, or a number no double holds. */
const lost = (parsed: number, source: string): boolean =>
  !Number.isFinite(parsed) || (INTEGER.test(source) && !Number.isSafeInteger(parsed))

/**
 * The body as JSON, and its top-level `id` as spelled when a double cannot carry it back (`lost`). A body without
 * sixteen digits in a row or a long exponent (nearly every one) is parsed plainly: the reviver runs only where such
 * an id can be.
 */
export const parseKeepingId = (text: string): { readonly value: unknown; readonly exactId: string | undefined } => {
  if (!LONG_NUMBER.test(text)) return { value: JSON.parse(text) as unknown, exactId: undefined }
  // Revivers run from the leaves up, so each holder of an `id` is noted, and the root's looked up at the end.
  const spelled = new WeakMap<object, string>()
  const value: unknown = JSON.parse(text, function (this: unknown, key: string, parsed: unknown, context?: ReviverContext) {
    if (
      key === "id" &&
      typeof parsed === "number" &&
      context?.source !== undefined &&
      lost(parsed, context.source) &&
      typeof this === "object" &&
      this !== null
    )
      spelled.set(this, context.source)
    return parsed
  })
  return { value, exactId: typeof value === "object" && value !== null ? spelled.get(value) : undefined }
}

/** The id to answer with: the request's own spelling. */
export const exactId = (spelled: string): ExactId => rawJSON(spelled)

/**
 * The top-level id of a JSON-RPC body, as spelled, when a double cannot carry it back; undefined otherwise, and for
 * a body that is no JSON (its parser says so). A body without sixteen digits in a row or a long exponent is not
 * parsed here at all: the MCP library parses it anyway.
 */
export const unsafeIdIn = (text: string): string | undefined => {
  if (!LONG_NUMBER.test(text)) return undefined
  try {
    return parseKeepingId(text).exactId
  } catch {
    return undefined
  }
}

/** Why such an id is refused where it cannot be answered as sent. */
export const unsafeIdMessage = (spelled: string): string =>
  Number.isFinite(Number(spelled))
    ? `Invalid request: the id ${spelled} is an integer past 2^53 - 1, which this server's JSON reader holds only as ${Number(spelled)}, so an answer could not carry it back. Send the id as a string, or as an integer of at most 9007199254740991.`
    : `Invalid request: the id ${spelled} is a number past the largest this server's JSON reader holds (about 1.8e308), so an answer could not carry it back. Send the id as a string, or as an integer of at most 9007199254740991.`
