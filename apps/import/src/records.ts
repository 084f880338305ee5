/**
 * Reading a catalog: NDJSON or a JSON array (detected from the first
 * non-space byte, or forced), from a file or stdin, streamed with bounded
 * memory. Each record keeps its position (line or index) for the report.
 */
import { Schema, Stream } from "effect"
import { duplicateKeys } from "@productdir/domain"
import type { FieldPath, RawRecord } from "@productdir/usecases"
import type { Readable } from "node:stream"
import streamArray from "stream-json/streamers/stream-array.js"

export const MAX_RECORD_BYTES = 1024 * 1024

export type Format = "ndjson" | "json"

/** The input itself cannot be read on (missing file, a broken JSON array): the run stops here. */
export class InputError extends Schema.TaggedError<InputError>()("InputError", { message: Schema.String }) {}

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09

/** Splits bytes into lines; a line over the limit is reported by its size, never held whole. */
async function* ndjsonRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<RawRecord> {
  let parts: Array<Buffer> = []
  let size = 0
  let line = 0
  const finish = (): RawRecord | undefined => {
    line++
    const bytes = size
    const text = bytes <= MAX_RECORD_BYTES ? Buffer.concat(parts).toString("utf8") : ""
    parts = []
    size = 0
    const position = { line }
    if (bytes > MAX_RECORD_BYTES) {
      return { _tag: "Unreadable", position, message: `the record is ${bytes} bytes, over the ${MAX_RECORD_BYTES}-byte limit` }
    }
    if (text.trim().length === 0) return undefined
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      // A line that does not even start as an object is likely another format (CSV, say): said so.
      const hint = text.trimStart().startsWith("{")
        ? ""
        : "; each line must be one JSON object (NDJSON): CSV and other formats are not read"
      return { _tag: "Unreadable", position, message: `not valid JSON (${(error as Error).message})${hint}` }
    }
    const repeated = duplicateKeys(text)
    return repeated.length === 0 ? { _tag: "Parsed", position, value } : { _tag: "Parsed", position, value, repeated }
  }
  for await (const chunk of chunks) {
    let start = 0
    for (let newline = chunk.indexOf(0x0a, start); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, newline)
      size += piece.length
      if (size <= MAX_RECORD_BYTES) parts.push(piece)
      const record = finish()
      if (record) yield record
      start = newline + 1
    }
    const rest = chunk.subarray(start)
    size += rest.length
    if (size <= MAX_RECORD_BYTES) parts.push(rest)
  }
  if (size > 0) {
    const record = finish()
    if (record) yield record
  }
}

/**
 * Names given twice in one object of a JSON array's records. stream-json's assembler keeps the last value,
 * as JSON.parse does, but calls a reviver with each name before it stores the value: a name the object already
 * has is a repeat. The object is marked with it, and every object on the way up to its record is tainted as it
 * is stored in its parent, so a record without repeats is passed at once (the parser runs ahead of the reader:
 * marks are kept per object, never reset per record).
 */
const repeatTracker = () => {
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

async function* arrayRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<RawRecord> {
  const repeats = repeatTracker()
  const parser = streamArray.withParserAsStream({ reviver: repeats.reviver })
  // A parser that fails is destroyed and never drains: waiting for `drain` alone waited forever (and held
  // the data directory's lock), so the feed also stops when the parser closes.
  const writable = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        parser.off("drain", done)
        parser.off("close", done)
        resolve()
      }
      parser.once("drain", done)
      parser.once("close", done)
    })
  const feed = (async () => {
    try {
      for await (const chunk of chunks) {
        if (parser.destroyed) return
        if (!parser.write(chunk)) await writable()
      }
      if (!parser.destroyed) parser.end()
    } catch (error) {
      parser.destroy(error as Error)
    }
  })()
  /** Where the array broke, for the report: after the last record read whole. */
  let last: number | undefined
  try {
    for await (const item of parser as AsyncIterable<{ key: number; value: unknown }>) {
      last = item.key
      const position = { index: item.key }
      const bytes = Buffer.byteLength(JSON.stringify(item.value))
      const repeated = repeats.within(item.value)
      yield bytes > MAX_RECORD_BYTES
        ? { _tag: "Unreadable", position, message: `the record is ${bytes} bytes, over the ${MAX_RECORD_BYTES}-byte limit` }
        : repeated.length === 0
          ? { _tag: "Parsed", position, value: item.value }
          : { _tag: "Parsed", position, value: item.value, repeated }
    }
  } catch (error) {
    const where = last === undefined ? "before its first record" : `after the record at index ${last}`
    throw new Error(`the JSON array is malformed ${where} (${(error as Error).message}); nothing after that point was read`)
  } finally {
    await feed
  }
}

/** Holds back the first bytes until the format is known, then replays them. */
async function* detect(source: Readable, format: Format | "auto"): AsyncGenerator<RawRecord> {
  const iterator = (source as AsyncIterable<Buffer>)[Symbol.asyncIterator]()
  const head: Array<Buffer> = []
  let chosen: Format | undefined = format === "auto" ? undefined : format
  while (chosen === undefined) {
    const next = await iterator.next()
    if (next.done) return // empty or only white space: no records
    const chunk = typeof next.value === "string" ? Buffer.from(next.value) : next.value
    head.push(chunk)
    const first = chunk.findIndex((byte) => !isSpace(byte))
    if (first !== -1) chosen = chunk[first] === 0x5b ? "json" : "ndjson" // '['
  }
  async function* replay(): AsyncGenerator<Buffer> {
    try {
      yield* head
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        yield typeof next.value === "string" ? Buffer.from(next.value) : next.value
      }
    } finally {
      // Stopped early (a broken array): the source is closed, not left open and paused.
      await iterator.return?.()
    }
  }
  yield* chosen === "json" ? arrayRecords(replay()) : ndjsonRecords(replay())
}

export const readRecords = (source: Readable, format: Format | "auto"): Stream.Stream<RawRecord, InputError> =>
  Stream.fromAsyncIterable(
    detect(source, format),
    (error) => new InputError({ message: error instanceof Error ? error.message : String(error) })
  )
