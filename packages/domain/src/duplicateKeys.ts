/**
 * Names given twice in one JSON object. JSON leaves what they mean open (RFC 8259 section 4: names SHOULD be
 * unique) and parsers differ: `JSON.parse` keeps the last, others the first, so a proxy in front and this
 * service could read two different votes from the same bytes. A body that repeats a name is refused instead.
 * Names are compared as JSON reads them (`"a"` and `"\u0061"` are one name).
 */

/** The path of each name given more than once, in the order met; empty for valid JSON without repeats. */
export const duplicateKeys = (text: string): ReadonlyArray<ReadonlyArray<string | number>> => {
  const found: Array<ReadonlyArray<string | number>> = []
  /** The open containers: an object's names so far and the name being read, or an array's next index. */
  const open: Array<{ names: Set<string> | undefined; at: string | number }> = []
  let expectingName = false
  let i = 0
  const readString = (): string => {
    const start = i
    i++
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1
    i++
    try {
      return JSON.parse(text.slice(start, i)) as string
    } catch {
      return text.slice(start + 1, i - 1)
    }
  }
  while (i < text.length) {
    const ch = text[i]!
    const top = open.at(-1)
    if (ch === '"') {
      const value = readString()
      if (expectingName && top?.names !== undefined) {
        // Where it is: the name or index within each enclosing container, then the name itself.
        if (top.names.has(value)) found.push([...open.slice(0, -1).map((c) => c.at), value])
        top.names.add(value)
        top.at = value
        expectingName = false
      }
      continue
    }
    if (ch === "{") {
      open.push({ names: new Set(), at: "" })
      expectingName = true
    } else if (ch === "[") {
      open.push({ names: undefined, at: 0 })
    } else if (ch === "}" || ch === "]") {
      open.pop()
    } else if (ch === ",") {
      if (top?.names !== undefined) expectingName = true
      else if (top !== undefined && typeof top.at === "number") top.at++
    }
    i++
  }
  return found
}
