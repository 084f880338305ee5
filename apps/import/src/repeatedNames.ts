import type { FieldPath } from "@productdir/usecases"

/**
 * Names given twice in one object of a JSON array's records (an NDJSON line is scanned whole by the domain's
 * duplicateKeys instead). stream-json's assembler keeps the last value, as JSON.parse does, but calls a reviver
 * with each name before it stores the value: a name the object already has is a repeat. The object is marked with it, and every object on the way up to its record is tainted as it
 * is stored in its parent, so a record without repeats is passed at once (the parser runs ahead of the reader:
 * marks are kept per object, never reset per record).
 */
export const repeatTracker = () => {
  const marked = new WeakMap<object, Array<string>>()
  const tainted = new WeakSet<object>()
  function reviver(this: unknown, key: string, value: unknown): unknown {
    if (typeof this !== "object" || this === null) return value
    if (typeof value === "object" && value !== null && tainted.has(value)) tainted.add(this)
    // Skipped: an array's items, and the holder of the whole array that the assembler passes at its end.
    if (!Array.isArray(this) && Object.hasOwn(this, key)) {
      const holder = key === "" && Array.isArray(value) && (this as Record<string, unknown>)[key] === value
      if (!holder) {
        marked.get(this)?.push(key) ?? marked.set(this, [key])
        tainted.add(this)
      }
    }
    return value
  }
  /** The repeats within one record, each at its path, in the order of its fields. */
  const within = (record: unknown): ReadonlyArray<FieldPath> => {
    const found: Array<FieldPath> = []
    const walk = (value: unknown, path: FieldPath) => {
      if (typeof value !== "object" || value === null || !tainted.has(value)) return
      for (const name of marked.get(value) ?? []) found.push([...path, name])
      if (Array.isArray(value)) for (const [index, item] of value.entries()) walk(item, [...path, index])
      else for (const [name, item] of Object.entries(value)) walk(item, [...path, name])
    }
    walk(record, [])
    return found
  }
  return { reviver, within }
}
