/**
 * The access log: one line per request (method, path, status, duration,
 * request id, and its trace id when tracing is on), the shape every other log line has (`Logger.formatJson`).
 * Written apart from the Effect logger because it is on every request's path:
 * built as one string and appended to a batch that one write flushes every
 * 50 ms (and at shutdown), it adds little to a read from the cache, where the
 * general logger would be a large share of its cost. On a terminal it goes through the Effect
 * logger like everything else (pretty); with LOG_LEVEL above `info`, nowhere (the
 * request metrics still count every request: apps/api/src/observability/httpMetrics.ts).
 */
import { Context, Effect, Layer, LogLevel, References } from "effect"

export interface AccessEntry {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly durationMs: number
  readonly requestId: string
  /** The request's trace, when tracing is on (apps/api/src/observability/tracing.ts). */
  readonly traceId?: string | undefined
  /** The template of the route it came by, when its answerer knew it (the cache's reads): the metrics' label. */
  readonly route?: string | undefined
}

export class AccessLog extends Context.Service<
  AccessLog,
  {
    /** A request arrived (the front door tells it first thing); its entry is recorded when it ends. */
    readonly arrived: () => void
    readonly record: (entry: AccessEntry) => Effect.Effect<void>
    /** The same, from outside Effect (the hot path). */
    readonly recordNow: (entry: AccessEntry) => void
  }
>()("@productdir/http/AccessLog") {}

const FLUSH_EVERY_MS = 50
/** A batch's buffer: about a thousand lines; a busier 50 ms is written as each fills. */
const BATCH_BYTES = 256 * 1024

const viaLogger = (entry: AccessEntry) =>
  Effect.logInfo("request").pipe(
    Effect.annotateLogs({
      method: entry.method,
      path: entry.path,
      status: entry.status,
      duration_ms: entry.durationMs,
      request_id: entry.requestId,
      ...(entry.traceId === undefined ? {} : { trace_id: entry.traceId })
    })
  )

/**
 * A string as JSON: quoted as it is when every character is printable ASCII other than `"` and `\` (a
 * method, a request id, a product's path: nearly every field of every line), else with JSON.stringify's
 * escapes. The scan costs a line less than three calls into JSON.stringify would.
 */
export const jsonString = (text: string): string => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(text)
  }
  return `"${text}"`
}

/** Batched JSON lines on stdout when it is not a terminal; the Effect logger otherwise. */
export const layer = Layer.effect(
  AccessLog,
  Effect.gen(function* () {
    const minimum = yield* References.MinimumLogLevel
    // Above info (LOG_LEVEL=warn, say) no entry is written: nothing to build, no fiber per request to drop it.
    if (LogLevel.isGreaterThan(minimum, "Info")) {
      return AccessLog.of({ arrived: () => {}, record: () => Effect.void, recordNow: () => {} })
    }
    if (process.stdout.isTTY) {
      // The hot path runs outside any fiber: its lines go through the logger from one of their own.
      const context = yield* Effect.context<never>()
      return AccessLog.of({
        arrived: () => {},
        record: viaLogger,
        recordNow: (entry) => void Effect.runForkWith(context)(viaLogger(entry))
      })
    }
    // The lines wait as bytes, not as one string: a string of 50 ms of lines would live through enough
    // collections to be moved to the old generation, and collecting it there costs the cached reads a
    // good part of their throughput. Each line's own string dies young.
    const batch = Buffer.allocUnsafeSlow(BATCH_BYTES)
    let used = 0
    let timer: ReturnType<typeof setTimeout> | undefined
    const flush = () => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      if (used === 0) return
      // A copy of what was written: the stream may write it later, and the buffer takes the next lines.
      const lines = Buffer.from(batch.subarray(0, used))
      used = 0
      process.stdout.write(lines)
    }
    /** Appends a line: at most three bytes a UTF-16 unit, so room for that many is made first. */
    const append = (line: string) => {
      if (used + 3 * line.length > BATCH_BYTES) flush()
      if (3 * line.length > BATCH_BYTES) process.stdout.write(line)
      else used += batch.write(line, used)
      if (used > 0 && timer === undefined) timer = setTimeout(flush, FLUSH_EVERY_MS)
    }
    yield* Effect.addFinalizer(() => Effect.sync(flush))
    // The timestamp's text, made once per millisecond: a busy server logs many lines in each.
    let stampedAt = -1
    let stamp = ""
    const timestamp = () => {
      const now = Date.now()
      if (now !== stampedAt) {
        stampedAt = now
        stamp = new Date(now).toISOString()
      }
      return stamp
    }
    const recordNow = (entry: AccessEntry) => {
      append(
        `{"message":"request","level":"INFO","timestamp":"${timestamp()}","annotations":{"method":${jsonString(entry.method)},"path":${jsonString(entry.path)},"status":${entry.status},"duration_ms":${entry.durationMs},"request_id":${jsonString(entry.requestId)}}${entry.traceId === undefined ? "" : `,"trace_id":${jsonString(entry.traceId)}`}}\n`
      )
    }
    return AccessLog.of({ arrived: () => {}, record: (entry) => Effect.sync(() => recordNow(entry)), recordNow })
  })
)
