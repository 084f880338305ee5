/**
 * JSON-RPC batches (MCP 2025-03-26 sessions) as the requests they hold. The library would run every call of a
 * batch at once and answer them together: a hundred-odd searches fit in one 16 KiB POST, and on many connections
 * they are thousands of calls at once in one process, past what it can hold. Here a batch is taken apart at the
 * edge and its messages run one after another, each taking its turn as a request of its own does
 * (packages/edge/src/clients/fairShare.ts), and the answers are put back together as the batch's answer:
 * - at most MAX_BATCH_MESSAGES messages a batch (a 400 with a JSON-RPC error beyond);
 * - answers of at most BATCH_ANSWER_BYTES in all: once a batch's answers reach it, its further calls are not run,
 *   and each is answered with an error that says to send it again on its own;
 * - a JSON array of the answers, or, when the server also sent notifications, an event stream of every message in
 *   order (as the transport allows); a batch of notifications alone is accepted with 202.
 */
import { Effect, Predicate, Stream } from "effect"
import { Headers, type HttpServerRequest, HttpServerResponse } from "effect/http"

/** Messages one batch may carry. */
export const MAX_BATCH_MESSAGES = 32

/** Bytes of answers one batch may carry back; a call answered past it is not run. */
export const BATCH_ANSWER_BYTES = 1024 * 1024

/** The JSON-RPC code of a call not run (the implementation's own range, -32000 to -32099). */
export const NOT_RUN = -32001

export const TOO_MANY_MESSAGES = `Invalid Request: a batch carries at most ${MAX_BATCH_MESSAGES} messages; send the others in another request.`

export const notRunMessage = `Not run: this batch's answers reached ${BATCH_ANSWER_BYTES / 1024 / 1024} MiB, the most one answer carries; send this call again in a request of its own.`

/** The messages of a POST body that is a JSON-RPC batch (a JSON array); undefined for any other body. */
export const batchOf = (text: string): ReadonlyArray<unknown> | undefined => {
  if (!text.trimStart().startsWith("[")) return undefined
  try {
    const value: unknown = JSON.parse(text)
    return Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** The id of a request (a call that expects an answer); undefined for a notification or a response. */
export const requestIdOf = (message: unknown): string | number | undefined =>
  Predicate.isObject(message) && typeof message.method === "string" && (typeof message.id === "string" || typeof message.id === "number")
    ? message.id
    : undefined

export const isInitialize = (message: unknown): boolean => Predicate.isObject(message) && message.method === "initialize"

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * `request` carrying `text` as its body instead of its own: one message of a batch, sent on as a request of
 * its own (its headers, its address and its connection are the batch's).
 */
export const withBody = (request: HttpServerRequest.HttpServerRequest, text: string): HttpServerRequest.HttpServerRequest => {
  const bytes = encoder.encode(text)
  const modified = request.modify({ headers: Headers.set(request.headers, "content-length", String(bytes.byteLength)) })
  return Object.create(modified, {
    text: { value: Effect.succeed(text) },
    json: { value: Effect.sync(() => JSON.parse(text) as unknown) },
    arrayBuffer: { value: Effect.sync(() => bytes.slice().buffer) },
    stream: { value: Stream.succeed(bytes) }
  }) as HttpServerRequest.HttpServerRequest
}

/**
 * What one message's answer held: its JSON-RPC messages as the library wrote them (JSON text: a batch's answer is put
 * together from them as they are, never parsed and written again), whether any is the server's own (a notification),
 * and their size.
 */
export interface Answered {
  readonly messages: ReadonlyArray<string>
  readonly notifies: boolean
  readonly bytes: number
}

/** The messages of the library's answer to one message: none (202), a JSON body's one, or each event of a stream. */
export const answeredBy = (response: HttpServerResponse.HttpServerResponse): Effect.Effect<Answered | undefined> =>
  Effect.gen(function* () {
    if (response.status === 202) return { messages: [], notifies: false, bytes: 0 }
    const type = response.headers["content-type"] ?? ""
    if (response.status !== 200) return undefined
    if (type.startsWith("application/json") && response.body._tag === "Uint8Array") {
      const text = decoder.decode(response.body.body).trim()
      return { messages: text === "" ? [] : [text], notifies: false, bytes: response.body.body.byteLength }
    }
    if (type.startsWith("text/event-stream")) {
      const chunks =
        response.body._tag === "Stream"
          ? yield* Stream.runCollect(response.body.stream).pipe(Effect.orElseSucceed(() => []))
          : response.body._tag === "Uint8Array"
            ? [response.body.body]
            : []
      const text = chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join("")
      const messages = text
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
      // A request or a notification of the server's has a method; a response has none (rare: read only here).
      const notifies = messages.some((m) => {
        const message: unknown = JSON.parse(m)
        return Predicate.isObject(message) && typeof message.method === "string"
      })
      return { messages, notifies, bytes: encoder.encode(text).byteLength }
    }
    return undefined
  })

/** The batch's answer from its messages' answers (JSON texts), in order. */
export const batchAnswer = (
  messages: ReadonlyArray<string>,
  notifies: boolean,
  headers: Headers.Headers
): HttpServerResponse.HttpServerResponse => {
  if (messages.length === 0) return HttpServerResponse.empty({ status: 202, headers })
  // Anything but responses (a notification the server sent while answering) goes out as an event stream.
  if (notifies) {
    const body = messages.map((m) => `event: message\ndata: ${m}\n\n`).join("")
    return HttpServerResponse.text(body, { status: 200, headers, contentType: "text/event-stream" })
  }
  return HttpServerResponse.text(`[${messages.join(",")}]`, { status: 200, headers, contentType: "application/json" })
}

/** The error answer of a call that was not run, as JSON text. */
export const notRun = (id: string | number, message: string): string =>
  JSON.stringify({ jsonrpc: "2.0", id, error: { code: NOT_RUN, message } })
