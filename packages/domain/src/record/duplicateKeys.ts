/**
 * Names given twice in one JSON object. JSON leaves what they mean open (RFC 8259 section 4: names SHOULD be
 * unique) and parsers differ: `JSON.parse` keeps the last, others the first, so a proxy in front and this
 * service could read two different votes from the same bytes, and an import would keep one of two values
 * without a word. A body or record that repeats a name is refused instead.
 * Names are compared as JSON reads them (`"a"` and `"\u0061"` are one name).
 *
 * Every request body and every imported record passes here, so the scan jumps from quote to quote with
 * `indexOf` and decodes only names (and only a name with an escape goes through `JSON.parse`): scanning a
 * record costs a fraction of parsing it. What it reports is bounded: at most MAX_REPEATS_REPORTED repeats, after
 * which it stops (each path is as long as the nesting, so a small body of `[[[…{"","",…` would make paths of
 * millions of elements in all, past the API's heap).
 *
 * `deeperThan` is the same walk for nesting alone: a body nested past what any of ours needs is refused before
 * anything else reads it.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const COMMA = 0x2c

/** The index of the quote that closes the string opened at `open` (one an even run of backslashes precedes); the text's length when none does. */
const closingQuote = (text: string, open: number): number => {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote
  }
  return text.length
}

/** A name as JSON reads it; the raw text between the quotes when it is not a valid JSON string. */
const nameAt = (text: string, open: number, close: number): string => {
  const raw = text.slice(open + 1, close)
  if (!raw.includes("\\")) return raw
  try {
    return JSON.parse(text.slice(open, close + 1)) as string
  } catch {
    return raw
  }
}

/** Names up to this many are kept in an array (most objects have a handful: cheaper than a Set); past it, a Set. */
const LISTED_NAMES = 16

/** An open container: an object's names so far and the name being read, or an array's next index. */
type Open = { names: Array<string> | Set<string>; at: string } | { readonly names: undefined; at: number }
type OpenObject = Extract<Open, { at: string }>

/** Adds `name` to the object's names; false when it was there already. */
const added = (object: OpenObject, name: string): boolean => {
  const names = object.names
  if (!Array.isArray(names)) return names.size !== names.add(name).size
  if (names.includes(name)) return false
  if (names.length < LISTED_NAMES) names.push(name)
  else object.names = new Set([...names, name])
  return true
}

/** Repeats reported at most: enough to name every one a client makes by mistake. */
export const MAX_REPEATS_REPORTED = 20

/**
 * The path of each name given more than once, in the order met (the first MAX_REPEATS_REPORTED of them);
 * empty for valid JSON without repeats.
 */
export const duplicateKeys = (text: string): ReadonlyArray<ReadonlyArray<string | number>> => {
  const found: Array<ReadonlyArray<string | number>> = []
  const open: Array<Open> = []
  let top: Open | undefined
  let expectingName = false
  let i = 0
  while (i < text.length) {
    const ch = text.charCodeAt(i)
    if (ch === QUOTE) {
      const close = closingQuote(text, i)
      if (expectingName && top?.names !== undefined) {
        const name = nameAt(text, i, close)
        // Where it is: the name or index within each enclosing container, then the name itself.
        if (!added(top, name)) {
          found.push([...open.slice(0, -1).map((c) => c.at), name])
          if (found.length === MAX_REPEATS_REPORTED) return found
        }
        top.at = name
        expectingName = false
      }
      i = close + 1
      continue
    }
    if (ch === OPEN_OBJECT) {
      top = { names: [], at: "" }
      open.push(top)
      expectingName = true
    } else if (ch === OPEN_ARRAY) {
      top = { names: undefined, at: 0 }
      open.push(top)
    } else if (ch === CLOSE_OBJECT || ch === CLOSE_ARRAY) {
      open.pop()
      top = open.at(-1)
    } else if (ch === COMMA) {
      if (top?.names !== undefined) expectingName = true
      else if (top !== undefined) top.at++
    }
    i++
  }
  return found
}

/** True when objects and arrays in `text` nest more than `max` levels deep (strings are skipped, not counted). */
export const deeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let i = 0
  while (i < text.length) {
    const ch = text.charCodeAt(i)
    if (ch === QUOTE) {
      i = closingQuote(text, i) + 1
      continue
    }
    if (ch === OPEN_OBJECT || ch === OPEN_ARRAY) {
      if (++depth > max) return true
    } else if (ch === CLOSE_OBJECT || ch === CLOSE_ARRAY) depth--
    i++
  }
  return false
}
