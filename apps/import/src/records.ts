/**
 * Reading a catalog: NDJSON or a JSON array (detected from the first
 * non-space byte, or forced), from a file or stdin, streamed with bounded
 * memory. Each record keeps its position (line or index) for the report.
 */
import { Schema, Stream } from "effect"
import { duplicateKeys } from "@productdir/domain"
import type { RawRecord } from "@productdir/usecases"
import type { Readable } from "node:stream"
import streamArray from "stream-json/streamers/stream-array.js"
import { repeatTracker } from "./repeatedNames.ts"
import { binaryRefusal, notUtf8, utf16Refusal, utf8Checker, withoutBom } from "./utf8.ts"

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
    const joined = bytes <= MAX_RECORD_BYTES ? Buffer.concat(parts) : undefined
    parts = []
    size = 0
    const position = { line }
    if (joined === undefined) {
      return { _tag: "Unreadable", position, message: `the record is ${bytes} bytes, over the ${MAX_RECORD_BYTES}-byte limit` }
    }
    const broken = notUtf8(joined)
    if (broken !== undefined) return { _tag: "Unreadable", position, message: broken }
    const text = joined.toString("utf8")
    if (text.trim().length === 0) return undefined
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      // A line that does not even start as an object is likely another format (CSV, say): said so.
      const hint = text.trimStart().startsWith("{")
        ? ""
        : "; each line must be one JSON object (NDJSON): CSV and other formats are not read"
      return { _tag: "Unreadable", position, message: `not valid JSON (${withinTheLine((error as Error).message)})${hint}` }
    }
    return { _tag: "Parsed", position, value, repeated: duplicateKeys(text), bytes }
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

/** A JSON array's bytes that are not UTF-8: the run stops there, as for a malformed array. */
class NotUtf8 extends Error {}

/** stream-json's pipes are stream-chain's: called with its `none` (a registry symbol, shared by every copy), one flushes. */
const FLUSH = Symbol.for("object-stream.none")

type ArrayPipe = (chunk: Buffer | symbol) => AsyncIterable<{ readonly key: number; readonly value: unknown }>

/**
 * A chunk cut after each `}`. The parser answers the bytes it is given as one batch of tokens, made whole before
 * any is handed on: bytes that break the array lose every record that ended in the same piece. Cut there, a
 * record's last byte ends its piece, so each record whole before a break is handed on before the break is read.
 */
function* cutAfterBraces(chunk: Buffer): Generator<Buffer> {
  let from = 0
  for (let at = chunk.indexOf(0x7d); at !== -1; at = chunk.indexOf(0x7d, at + 1)) {
    yield chunk.subarray(from, at + 1)
    from = at + 1
  }
  if (from < chunk.length) yield chunk.subarray(from)
}

/**
 * The records of a JSON array, each as the parser makes it. The parser is driven as a pipe that is pulled
 * from, piece by piece (cutAfterBraces), not as a stream of whole chunks: records whole before a break in the
 * same chunk would be lost, and the run would say it broke after an earlier record (a small array with text after
 * it "before its first record") and import only those. Pulled, the parser makes a record only when the one before
 * was taken.
 */
async function* arrayRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<RawRecord> {
  const repeats = repeatTracker()
  const pipe = streamArray.withParser({ reviver: repeats.reviver }) as unknown as ArrayPipe
  const utf8 = utf8Checker()
  /** Why the input stopped being UTF-8, once it has: the parser is given the bytes before, then ended. */
  let broken: string | undefined
  async function* parsed() {
    for await (const chunk of chunks) {
      const bad = utf8(chunk)
      if (bad !== undefined) {
        // The records whole before the bad byte are read and imported, as the run's message says.
        broken = bad.message
        for (const piece of cutAfterBraces(chunk.subarray(0, bad.validBytes))) yield* pipe(piece)
        break
      }
      for (const piece of cutAfterBraces(chunk)) yield* pipe(piece)
    }
    // The end of the input: an array not closed by then fails here.
    yield* pipe(FLUSH)
  }
  /** Where the array broke, for the report: after the last record read whole. */
  let last: number | undefined
  try {
    for await (const item of parsed()) {
      last = item.key
      const position = { index: item.key }
      const bytes = Buffer.byteLength(JSON.stringify(item.value))
      yield bytes > MAX_RECORD_BYTES
        ? { _tag: "Unreadable", position, message: `the record is ${bytes} bytes, over the ${MAX_RECORD_BYTES}-byte limit` }
        : { _tag: "Parsed", position, value: item.value, repeated: repeats.within(item.value), bytes }
    }
    if (broken !== undefined) throw new NotUtf8(broken)
  } catch (error) {
    const where = last === undefined ? "before its first record" : `after the record at index ${last}`
    // The array ended early because its bytes stopped being UTF-8: that is the reason to give, not the end it was cut at.
    const notUtf8 = error instanceof NotUtf8 ? error.message : broken
    throw new Error(
      notUtf8 !== undefined
        ? `${notUtf8} (${where}); nothing after that point was read`
        : `the JSON array is malformed ${where} (${(error as Error).message}); nothing after that point was read`
    )
  }
}

/**
 * JSON.parse's message with its place said within the record's line: it counts lines and positions from the
 * record's own start ("at position 14 (line 1 column 15)"), which beside the file's line number read as
 * a second, other line. An NDJSON record is one line, so its column is the place.
 */
const withinTheLine = (message: string): string =>
  message.replace(/ at position \d+ \(line 1 column (\d+)\)$/u, " at column $1 of the line")

/** Holds back the first bytes until the format is known, then replays them. */
async function* detect(source: Readable, format: Format | "auto"): AsyncGenerator<RawRecord> {
  const iterator = (source as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]()
  let first = true
  /** The next chunk as bytes; the input's first bytes checked: a UTF-16 text refused, a UTF-8 byte order mark skipped. */
  const bytesOf = (value: Buffer | string): Buffer => {
    const bytes = typeof value === "string" ? Buffer.from(value) : value
    if (!first) return bytes
    first = false
    const refusal = utf16Refusal(bytes) ?? binaryRefusal(bytes)
    if (refusal !== undefined) throw new Error(refusal)
    return withoutBom(bytes)
  }
  const head: Array<Buffer> = []
  let chosen: Format | undefined = format === "auto" ? undefined : format
  while (chosen === undefined) {
    const next = await iterator.next()
    if (next.done) return // empty or only white space: no records
    const chunk = bytesOf(next.value)
    head.push(chunk)
    const at = chunk.findIndex((byte) => !isSpace(byte))
    if (at !== -1) chosen = chunk[at] === 0x5b ? "json" : "ndjson" // '['
  }
  async function* replay(): AsyncGenerator<Buffer> {
    try {
      yield* head
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield bytesOf(next.value)
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
