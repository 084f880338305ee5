/**
 * The edge of /mcp. Browsers may reach a server on this machine from any web
 * page, and DNS rebinding lets a foreign page pose as a local name, so a
 * request that carries an `Origin` is served only when that origin is the
 * server's own (PUBLIC_URL), a loopback origin of a loopback server, or one
 * listed in MCP_ALLOWED_ORIGINS; a loopback server also refuses a `Host` that is
 * not a loopback name or its public host. Agents on servers send no `Origin`.
 *
 * A request that carries an API key (`Authorization: Bearer`) is served only when
 * the key proves an agent in good standing: a bad key is a 401 here, as on
 * POST /vote, before any MCP message is read. The vote tool then counts for
 * that agent (handlers.ts).
 *
 * The MCP server's own refusals are empty responses; here each becomes a problem
 * that says what to do (which header, initialize first), JSON-RPC errors lose
 * the library's internal `_tag`, and a completion for a ref the server does not
 * know is an empty one rather than an error.
 *
 * A session's request whose MCP-Protocol-Version names another revision this
 * server speaks is answered in the session's own revision (revisions.ts), and
 * what the library does not do over HTTP is done here: resource subscriptions,
 * the GET stream their notifications go out on (subscriptions.ts).
 */
import { Clock, Duration, Effect, Option, Predicate } from "effect"
import { Headers, HttpServerRequest, HttpServerResponse } from "effect/http"
import { ROUTES } from "@productdir/domain"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { notUtf8, utf8Text } from "@productdir/edge/bodyPolicy"
import { clientAddress } from "@productdir/edge/clients/clientAddress"
import { hostnameOf, isLoopbackHost, isLoopbackName } from "@productdir/edge/clients/hosts"
import { unsafeIdIn, unsafeIdMessage } from "@productdir/edge/jsonRpcIds"
import { Callers, refusalResponse } from "@productdir/edge/callers/callers"
import { problem } from "@productdir/edge/problems/problemResponses"
import { Busy, busyResponse, FairShare, whenBusy } from "@productdir/edge/clients/fairShare"
import { compressedInTurn } from "@productdir/edge/responses/compressedInTurn"
import { BatchSlots } from "./batchSlots.ts"
import { allowingOrigin, isPreflight, preflight } from "./cors.ts"
import { foreignListCursor } from "./listCursors.ts"
import { INVALID_PARAMS, namedParamIssues } from "./paramIssues.ts"
import { answeredAsSession, BATCH_REVISIONS, SESSION_REVISIONS } from "./revisions.ts"
import {
  answeredBy,
  BATCH_ANSWER_BYTES,
  batchAnswer,
  batchOf,
  isInitialize,
  MAX_BATCH_MESSAGES,
  notRun,
  notRunMessage,
  requestIdOf,
  TOO_MANY_MESSAGES,
  withBody
} from "./batches.ts"
import { McpSessions } from "./sessions.ts"
import { RESOURCE_NOT_FOUND } from "./resources.ts"
import { makeSubscriptionEdge } from "./subscriptions.ts"

export const MCP_PATH = ROUTES.mcp

/** The host of the DELETE requests that end idle sessions in the library: a loopback name passes every host check. */
const LOCAL_ORIGIN = "127.0.0.1"

/** A scheme and a host, nothing after: how a browser serializes an origin of any scheme. */
const ORIGIN_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+$/iu

/**
 * An origin as it can be compared, or undefined when it names none. An http(s) origin is normalized
 * (case, default port); one of another scheme (`chrome-extension://<id>`, `vscode-webview://<id>`) is
 * an opaque origin to the URL standard, so `new URL(…).origin` says "null" for every one of them alike:
 * it is compared as written instead, and `file://`, `null` and `data:` name no origin at all.
 */
const originOf = (url: string): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  if (parsed.protocol === "http:" || parsed.protocol === "https:") return parsed.origin
  return ORIGIN_FORM.test(url) ? url.toLowerCase() : undefined
}

const isHttpOrigin = (origin: string): boolean => origin.startsWith("http://") || origin.startsWith("https://")

export interface OriginPolicy {
  /** The server listens on a loopback address only. */
  readonly loopback: boolean
  readonly publicUrl: Option.Option<string>
  readonly allowed: ReadonlyArray<string>
}

/** Why a request may not use /mcp, or undefined when it may. */
export const refusal = (policy: OriginPolicy, headers: Readonly<Record<string, string | undefined>>): string | undefined => {
  const publicOrigin = Option.getOrUndefined(Option.map(policy.publicUrl, (url) => originOf(url)))
  const host = headers.host
  if (policy.loopback && host !== undefined) {
    const name = hostnameOf(host)
    const publicHost = publicOrigin === undefined ? undefined : hostnameOf(new URL(publicOrigin).host)
    if (
      !isLoopbackName(name) &&
      name !== publicHost &&
      !policy.allowed.some((o) => {
        const allowed = originOf(o)
        return allowed !== undefined && isHttpOrigin(allowed) && hostnameOf(new URL(allowed).host) === name
      })
    ) {
      return `This server listens on this machine only; requests for host "${host}" are refused (DNS-rebinding protection). Use http://localhost or http://127.0.0.1, or set PUBLIC_URL.`
    }
  }
  const origin = headers.origin
  if (origin === undefined) return undefined
  const normalized = originOf(origin)
  if (normalized !== undefined) {
    if (normalized === publicOrigin) return undefined
    if (policy.loopback && isHttpOrigin(normalized) && isLoopbackName(new URL(normalized).hostname)) return undefined
    if (policy.allowed.some((o) => originOf(o) === normalized)) return undefined
  }
  return `Browser requests from origin ${origin} are refused (DNS-rebinding protection). Serve the page from this server's own origin, or list its origin in MCP_ALLOWED_ORIGINS (comma-separated) on the server.`
}

const DETAILS: Record<number, string> = {
  400: "The request does not fit the MCP Streamable HTTP transport: send initialize first, then the MCP-Session-Id header it returns with every request, and MCP-Protocol-Version with the version initialize agreed.",
  404: "This MCP session is unknown or has ended: send initialize again to start a new one.",
  405: "The MCP endpoint takes POST (JSON-RPC messages), GET with a session's MCP-Session-Id (its notification stream) and DELETE (ending a session).",
  406: "Send Accept: application/json, text/event-stream: the MCP endpoint answers in either.",
  415: "Send Content-Type: application/json: MCP messages are JSON-RPC."
}

/** JSON-RPC error objects without the library's internal `_tag`. */
const withoutTags = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutTags)
  if (value === null || typeof value !== "object") return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "_tag")
      .map(([key, v]) => [key, withoutTags(v)])
  )
}

/** A JSON-RPC error response, as the library writes one: its error, and the rest of the message. */
interface ErrorReply {
  readonly error: { readonly code?: unknown; readonly message?: unknown }
  readonly [key: string]: unknown
}

/** `rewrite` applied to each error response of an answer (one message, or each of a batch's); results pass. */
const eachError =
  (rewrite: (reply: ErrorReply) => unknown) =>
  (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(eachError(rewrite))
      : Predicate.isObject(value) && Predicate.isObject(value.error)
        ? rewrite(value as unknown as ErrorReply)
        : value

/** JSON-RPC error objects of unknown resources with the protocol's code instead of an internal error's. */
const notFoundCodes = (stateless: boolean) =>
  eachError((reply) => {
    const { error } = reply
    if (error.code !== -32603 || typeof error.message !== "string" || !error.message.startsWith(RESOURCE_NOT_FOUND)) return reply
    return { ...reply, error: { ...error, code: stateless ? -32602 : -32002, message: error.message.slice(RESOURCE_NOT_FOUND.length) } }
  })

const RESOURCE_NOT_FOUND_BYTES = Buffer.from(RESOURCE_NOT_FOUND)

const TAG = Buffer.from('"_tag"')
/** What the MCP library answers a completion request for a ref it has no completions for. */
const UNKNOWN_COMPLETION = "Unknown completion reference or argument"
const UNKNOWN_COMPLETION_BYTES = Buffer.from(UNKNOWN_COMPLETION)

const contains = (body: Uint8Array, needle: Buffer): boolean => Buffer.from(body.buffer, body.byteOffset, body.byteLength).includes(needle)

/**
 * A completion for a prompt or resource this server does not have is answered
 * with no values, not an error: a client completing whatever it was given (an
 * argument of a ref from another server, a typo) gets an empty list to show.
 */
const emptyCompletions = (stateless: boolean) =>
  eachError(({ error, ...rest }) => {
    if (error.message !== UNKNOWN_COMPLETION) return { error, ...rest }
    const completion = { values: [], total: 0, hasMore: false }
    // Stateless results (2026-07-28) say they are complete, as every other result of that revision does.
    return { ...rest, result: stateless ? { resultType: "complete", completion } : { completion } }
  })

/** What the library says of a stateless request without its metadata, and what it means, named. */
const METADATA_MISSING = "Required request metadata is missing"
const METADATA_MISSING_BYTES = Buffer.from(METADATA_MISSING)
const METADATA_NAMED = `${METADATA_MISSING}: a 2026-07-28 request carries params._meta with "io.modelcontextprotocol/protocolVersion" (the revision, as in its MCP-Protocol-Version header) and "io.modelcontextprotocol/clientCapabilities" (an object)`

/** The library's bare "metadata is missing" said with the two keys a stateless request carries. */
const namedMetadata = eachError((reply) =>
  reply.error.message === METADATA_MISSING ? { ...reply, error: { ...reply.error, message: METADATA_NAMED } } : reply
)

/**
 * A body the server could not take as a message: not JSON (-32700), or JSON that is no JSON-RPC 2.0 request
 * (-32600: another `jsonrpc` than "2.0" or none, an id of the wrong kind). The transport says such input is
 * answered with an HTTP error status (400), its body the JSON-RPC error; the library answers it 200, which a
 * client, a proxy or a log reads as served. Its id is kept where the library could read one (`"jsonrpc":"1.0"`
 * with `"id":1`), so that the client can tell which message it was.
 */
const REFUSED_INPUT_CODES = new Set([-32700, -32600])
const REFUSED_INPUT_BYTES = [Buffer.from("-32700"), Buffer.from("-32600")]

/** One error response (not a batch's) for input that is no request. */
const isRefusedInput = (value: unknown): boolean =>
  Predicate.isObject(value) && Predicate.isObject(value.error) && REFUSED_INPUT_CODES.has(value.error.code as number)

/**
 * The stateless revision's discovery as the library writes it offers list changes and resource subscriptions
 * over `subscriptions/listen`; what changes a product (a vote, an import) is told to sessions only, on their GET
 * stream (subscriptions.ts), so a stateless client that listened would hear nothing. Its capabilities say so.
 */
const STREAMED_CAPABILITIES = [Buffer.from('"subscribe":true'), Buffer.from('"listChanged":true')]

const withoutStreamedCapabilities = (value: unknown): unknown => {
  if (!Predicate.isObject(value) || !Predicate.isObject(value.result) || !Predicate.isObject(value.result.capabilities)) return value
  // An initialize sent with the stateless revision's header still makes a session, of the revision its answer
  // names: its capabilities are that session's, subscriptions included.
  if (typeof value.result.protocolVersion === "string" && SESSION_REVISIONS.has(value.result.protocolVersion)) return value
  const capabilities = Object.fromEntries(
    Object.entries(value.result.capabilities).map(([name, capability]) => [
      name,
      Predicate.isObject(capability)
        ? Object.fromEntries(Object.entries(capability).map(([key, v]) => [key, key === "subscribe" || key === "listChanged" ? false : v]))
        : capability
    ])
  )
  return { ...value, result: { ...value.result, capabilities } }
}

const INVALID_PARAMS_BYTES = Buffer.from(INVALID_PARAMS)

const bodyOf = (response: HttpServerResponse.HttpServerResponse): Uint8Array =>
  response.body._tag === "Uint8Array" ? response.body.body : new Uint8Array()

/** The library's bare invalid-params answer with `named` (paramIssues.ts) as its message, when there is one. */
const withNamedParams = (response: HttpServerResponse.HttpServerResponse, named: string | undefined) => {
  if (named === undefined || !(response.headers["content-type"] ?? "").startsWith("application/json")) return response
  const json = JSON.parse(new TextDecoder().decode(bodyOf(response))) as unknown
  const answered = eachError((reply) =>
    reply.error.message === INVALID_PARAMS ? { ...reply, error: { ...reply.error, message: named } } : reply
  )(json)
  return HttpServerResponse.jsonUnsafe(answered, { status: response.status, headers: response.headers })
}

const ALLOWED_METHODS = "GET, POST, DELETE"

/** The stateless protocol revision: a request names it in every MCP-Protocol-Version header. */
const STATELESS_REVISION = "2026-07-28"

const isEmpty = (response: HttpServerResponse.HttpServerResponse): boolean =>
  response.body._tag === "Empty" || (response.body._tag === "Uint8Array" && response.body.body.byteLength === 0)

const BATCH_REFUSED =
  "This MCP revision takes one JSON-RPC message per request: batches were removed from the protocol in 2025-06-18. Send each message in a POST of its own."

const tidy = (response: HttpServerResponse.HttpServerResponse, stateless: boolean): HttpServerResponse.HttpServerResponse => {
  if (isEmpty(response) && response.status >= 400) {
    const detail = DETAILS[response.status]
    // GET is served here (subscriptions.ts), before the library that answers it 405.
    const headers = response.status === 405 ? { ...response.headers, allow: ALLOWED_METHODS } : response.headers
    if (detail !== undefined) return problem(response.status, detail, headers)
  }
  const contentType = response.headers["content-type"] ?? ""
  const bytes = bodyOf(response)
  if (
    contentType.startsWith("application/json") &&
    [
      TAG,
      UNKNOWN_COMPLETION_BYTES,
      RESOURCE_NOT_FOUND_BYTES,
      METADATA_MISSING_BYTES,
      ...REFUSED_INPUT_BYTES,
      ...(stateless ? STREAMED_CAPABILITIES : [])
    ].some((needle) => contains(bytes, needle))
  ) {
    const json = JSON.parse(new TextDecoder().decode(bytes)) as unknown
    const answered = namedMetadata(notFoundCodes(stateless)(emptyCompletions(stateless)(withoutTags(json))))
    return HttpServerResponse.jsonUnsafe(stateless ? withoutStreamedCapabilities(answered) : answered, {
      status: response.status === 200 && isRefusedInput(json) ? 400 : response.status,
      headers: response.headers
    })
  }
  return response
}

/** Middleware: the /mcp edge; every other path passes untouched. */
export const makeMcpEdge = Effect.gen(function* () {
  const config = yield* ApiConfig
  const callers = yield* Callers
  const subscriptions = yield* makeSubscriptionEdge
  const sessions = yield* McpSessions
  const share = yield* FairShare
  const slots = yield* BatchSlots
  const idleMillis = Duration.toMillis(config.mcpSessionIdle)
  const policy = { loopback: isLoopbackHost(config.host), publicUrl: config.publicUrl, allowed: config.mcpAllowedOrigins }
  /** A request the edge lets in, to the MCP server (with the subscriptions and sessions done here). */
  /** One request (or, with `body`, one message of a batch: batches.ts) let in, to the MCP server. */
  const serve = <E, R>(
    request: HttpServerRequest.HttpServerRequest,
    httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
    body?: string
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.gen(function* () {
      if (request.headers.authorization !== undefined) {
        const proof = yield* Effect.result(callers.identify(request))
        if (proof._tag === "Failure") return refusalResponse(proof.failure)
      }
      // Checked here, more finely than the MCP server's fixed list: it gets the request without Origin.
      const withoutOrigin = Headers.remove(request.headers, "origin")
      const modified = request.modify({
        headers: answeredAsSession(request.headers) ? Headers.remove(withoutOrigin, "mcp-protocol-version") : withoutOrigin
      })
      const forwarded = body === undefined ? modified : withBody(modified, body)
      if (request.method === "POST") {
        // An id the library would read as another number, and answer so (packages/edge/src/jsonRpcIds.ts): refused as the
        // transport refuses input that is no request, before it can start or end anything.
        const text = yield* Effect.option(forwarded.text)
        const unsafe = text._tag === "Some" ? unsafeIdIn(text.value) : undefined
        if (unsafe !== undefined) {
          return HttpServerResponse.jsonUnsafe(
            { jsonrpc: "2.0", id: null, error: { code: -32600, message: unsafeIdMessage(unsafe) } },
            { status: 400 }
          )
        }
      }
      const sessionId = request.headers["mcp-session-id"]
      const now = yield* Clock.currentTimeMillis
      /** Ends sessions in the library, as a DELETE would, and here. */
      const end = (ending: ReadonlyArray<string>) =>
        Effect.forEach(ending, (id) => {
          const deletion = HttpServerRequest.fromWeb(
            new Request(`http://${LOCAL_ORIGIN}${MCP_PATH}`, { method: "DELETE", headers: { host: LOCAL_ORIGIN, "mcp-session-id": id } })
          )
          return Effect.andThen(
            Effect.ignore(Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, deletion)),
            sessions.ended(id)
          )
        })
      if (sessionId !== undefined) {
        sessions.touched(sessionId, now)
        // A subscription when the process holds all it may: room made by the network holding most (sessions.ts).
        if (body?.includes('"resources/subscribe"') === true)
          yield* end(sessions.roomToSubscribe(clientAddress(request, config.trustProxy)))
      } else if (request.method === "POST") {
        // Perhaps an initialize: room for its session first.
        yield* end(sessions.toEnd(now, idleMillis, config.mcpMaxSessions, clientAddress(request, config.trustProxy)))
      }
      if (request.method === "GET") return tidy(yield* subscriptions.openStream(forwarded), false)
      const response = yield* Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, forwarded)
      // A list request with a cursor: answered by the library (its session checked, nothing changed), then refused.
      if (request.method === "POST" && response.status === 200) {
        const text = yield* Effect.option(forwarded.text)
        const listCursor = text._tag === "Some" ? foreignListCursor(text.value) : undefined
        if (listCursor !== undefined) return HttpServerResponse.jsonUnsafe(listCursor)
      }
      // The library's bare 400 to a batch in a revision without batches: said as that, not as "initialize first".
      if (request.method === "POST" && response.status === 400 && isEmpty(response)) {
        const bytes = yield* Effect.option(forwarded.arrayBuffer)
        if (bytes._tag === "Some" && new TextDecoder().decode(bytes.value).trimStart().startsWith("[")) return problem(400, BATCH_REFUSED)
      }
      const answer = yield* subscriptions.complete(forwarded, response)
      const named = contains(bodyOf(answer), INVALID_PARAMS_BYTES) ? yield* Effect.option(forwarded.text) : Option.none()
      return tidy(
        Option.isSome(named) ? withNamedParams(answer, namedParamIssues(named.value)) : answer,
        request.headers["mcp-protocol-version"] === STATELESS_REVISION
      )
    })

  /**
   * A POST: its message in its client's turn, or, a batch of a session whose revision takes batches, each of
   * its messages in a turn of its own, their answers put together (batches.ts).
   */
  const post = <E, R>(
    request: HttpServerRequest.HttpServerRequest,
    httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.gen(function* () {
      const address = clientAddress(request, config.trustProxy)
      const sessionId = request.headers["mcp-session-id"]
      // Read strictly here: the text handed on is what the body policy reads, and a lenient read would have put
      // U+FFFD where the broken bytes were, for a body the policy refuses (packages/edge/src/bodyPolicy.ts).
      const bytes = yield* Effect.option(request.arrayBuffer)
      const decoded = bytes._tag === "Some" ? utf8Text(bytes.value) : undefined
      if (bytes._tag === "Some" && decoded === undefined) return notUtf8(ROUTES.mcp)
      const text = decoded === undefined ? Option.none<string>() : Option.some(decoded)
      const batch = text._tag === "Some" ? batchOf(text.value) : undefined
      // What the library refuses as a batch (an empty one, one with initialize, one in a revision without batches) goes to it whole.
      if (
        batch === undefined ||
        batch.length === 0 ||
        batch.some(isInitialize) ||
        sessionId === undefined ||
        !BATCH_REVISIONS.has(sessions.revisionOf(sessionId) ?? "")
      ) {
        // The body read here is the one the library reads: a request's body can be read once.
        // Compressed in the turn too (packages/edge/src/responses/compressedInTurn.ts): an answer made waits for the wire at its compressed size.
        return yield* share
          .run(
            address,
            Effect.flatMap(serve(request, httpEffect, text._tag === "Some" ? text.value : undefined), (response) =>
              compressedInTurn(request, response)
            )
          )
          .pipe(whenBusy(busyResponse))
      }
      if (batch.length > MAX_BATCH_MESSAGES) {
        return HttpServerResponse.jsonUnsafe(
          { jsonrpc: "2.0", id: null, error: { code: -32600, message: TOO_MANY_MESSAGES } },
          { status: 400 }
        )
      }
      // The batch's answers are held until its last call: it is answered in a slot of its own (batchSlots.ts).
      return yield* slots.run(address, answerBatch(request, httpEffect, address, batch)).pipe(whenBusy(busyResponse))
    })

  /** A batch's messages, each in a turn of its own, and the batch's answer put together from theirs. */
  const answerBatch = <E, R>(
    request: HttpServerRequest.HttpServerRequest,
    httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
    address: string,
    batch: ReadonlyArray<unknown>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.gen(function* () {
      const replies: Array<string> = []
      let notifies = false
      let spent = 0
      let headers = Headers.empty
      for (const message of batch) {
        const id = requestIdOf(message)
        if (spent >= BATCH_ANSWER_BYTES) {
          if (id !== undefined) replies.push(notRun(id, notRunMessage))
          continue
        }
        // The answer is read within the turn too: taking a large answer apart is work of the process like any other.
        const turn = yield* share
          .run(
            address,
            Effect.flatMap(serve(request, httpEffect, JSON.stringify(message)), (response) =>
              Effect.map(answeredBy(response), (answered) => ({ response, answered }))
            )
          )
          .pipe(whenBusy((busy) => busy))
        if (turn instanceof Busy) {
          if (id !== undefined) replies.push(notRun(id, `Not run: ${turn.message}`))
          continue
        }
        const { response, answered } = turn
        // Refused as a request (an unknown session, a bad header): that is the batch's answer, as it would have been whole.
        if (answered === undefined) return response
        replies.push(...answered.messages)
        notifies ||= answered.notifies
        spent += answered.bytes
        headers = Headers.removeMany(response.headers, ["content-type", "content-length"])
      }
      // And so is writing the batch's answer (up to a MiB of JSON), and compressing it: within its slot, what the batch
      // leaves waiting for the wire is its compressed bytes (packages/edge/src/responses/compressedInTurn.ts).
      return yield* share
        .run(
          address,
          Effect.flatMap(
            Effect.sync(() => batchAnswer(replies, notifies, headers)),
            (response) => compressedInTurn(request, response)
          )
        )
        .pipe(whenBusy(busyResponse))
    })

  return <E, R>(
    httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      if ((request.url.split("?")[0] ?? "/") !== MCP_PATH) return yield* httpEffect
      const refused = refusal(policy, request.headers)
      if (refused !== undefined) return problem(403, refused)
      // Past the refusal, an Origin is one this endpoint serves: a browser's, which may read what it is answered.
      const origin = request.headers.origin
      if (isPreflight(request.method, request.headers) && origin !== undefined) return preflight(origin, ALLOWED_METHODS)
      // A POST's messages take their turns (packages/edge/src/clients/fairShare.ts); a stream (GET) and the end of a session do not.
      const answer = request.method === "POST" ? yield* post(request, httpEffect) : yield* serve(request, httpEffect)
      return origin === undefined ? answer : allowingOrigin(answer, origin)
    })
})
