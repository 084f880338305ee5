/**
 * Resource subscriptions over Streamable HTTP, which the MCP library serves
 * over stdio only: at the edge of /mcp (edge.ts), around the library.
 *
 * - initialize: the answer advertises `resources.subscribe`, and the session
 *   id it hands out is remembered (sessions.ts).
 * - resources/subscribe and resources/unsubscribe: the library checks the
 *   session, the headers and the parameters, and answers that it does not
 *   support subscriptions; that answer is replaced by ours. A URI is subscribed
 *   to only when it names a product that exists (or a resource of the server
 *   that never changes); any other is refused with -32002 (Resource not found)
 *   and words that say which URIs there are.
 * - GET /mcp with the session's id: the stream its notifications go out on.
 * - DELETE /mcp: when the library ended the session, its subscriptions end.
 */
import { Clock, Effect } from "effect"
import { HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"
import type { ProductId } from "@productdir/domain"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { makeCachedDocument } from "@productdir/read-cache/cachedReads"
import { clientAddress } from "@productdir/edge/clients/clientAddress"
import { problem } from "@productdir/edge/problems/problemResponses"
import { MCP_DOOR, refusals } from "@productdir/edge/refusals"
import { SESSION_REVISIONS } from "./revisions.ts"
import { PRODUCT_RESOURCE_TEMPLATE, productRefOf } from "./resources.ts"
import { McpSessions } from "./sessions.ts"

/** What the library answers a subscription request over HTTP. */
const UNSUPPORTED = Buffer.from("Resource subscriptions are not supported")
const SERVER_INFO = Buffer.from('"serverInfo"')
/** What the library answers parameters that do not fit, without saying which. */
const INVALID_PARAMS = Buffer.from("Invalid method parameters")

const contains = (body: Uint8Array, needle: Buffer): boolean => Buffer.from(body.buffer, body.byteOffset, body.byteLength).includes(needle)

interface RpcError {
  readonly code: number
  readonly message: string
  /** For an unknown resource, its URI (as the protocol's example of the error says it). */
  readonly data?: { readonly uri: string }
}

interface JsonRpcRequest {
  readonly id?: string | number
  readonly method?: string
  readonly params?: { readonly uri?: unknown }
}

const jsonBodyOf = (response: HttpServerResponse.HttpServerResponse): Uint8Array | undefined =>
  response.body._tag === "Uint8Array" && (response.headers["content-type"] ?? "").startsWith("application/json")
    ? response.body.body
    : undefined

const decoder = new TextDecoder()

export const makeSubscriptionEdge = Effect.gen(function* () {
  const sessions = yield* McpSessions
  const config = yield* ApiConfig
  const cached = yield* makeCachedDocument

  /** The product a subscribed URI follows (undefined: a resource that never changes), or why it cannot be subscribed to. */
  const resolve = (uri: string): Effect.Effect<ProductId | undefined, RpcError> => {
    const ref = productRefOf(uri)
    if (ref === undefined) {
      return sessions.staticResources.current().includes(uri)
        ? Effect.succeed(undefined)
        : Effect.fail({
            code: -32002,
            data: { uri },
            message: `No resource has the URI "${uri}": this server's resources are products, ${PRODUCT_RESOURCE_TEMPLATE} (a slug or id from search_products).`
          })
    }
    return cached("view", ref).pipe(
      Effect.map((view) => (view as { readonly id: ProductId }).id),
      Effect.catchTags({
        ProductNotFound: (e) => Effect.fail({ code: -32002, data: { uri }, message: refusals.ProductNotFound(e, MCP_DOOR) }),
        ProductRemoved: (e) => Effect.fail({ code: -32002, data: { uri }, message: refusals.ProductRemoved(e) }),
        StoreError: (e) => Effect.fail({ code: -32603, message: refusals.StoreError(e) })
      })
    )
  }

  /** Our answer to a subscription request the library turned down for want of subscriptions over HTTP. */
  const answerSubscription = (request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) =>
    Effect.gen(function* () {
      const sessionId = request.headers["mcp-session-id"]
      const body = yield* Effect.orElseSucceed(request.json, () => undefined)
      const message = (body ?? {}) as JsonRpcRequest
      const uri = message.params?.uri
      if (sessionId === undefined || typeof uri !== "string") return response
      const reply = (outcome: { readonly result: object } | { readonly error: RpcError }) =>
        HttpServerResponse.jsonUnsafe({ jsonrpc: "2.0", id: message.id ?? null, ...outcome }, { status: 200, headers: response.headers })
      if (message.method === "resources/unsubscribe") {
        yield* sessions.unsubscribe(sessionId, uri)
        return reply({ result: {} })
      }
      if (message.method !== "resources/subscribe") return response
      const product = yield* Effect.result(resolve(uri))
      if (product._tag === "Failure") return reply({ error: { ...product.failure } })
      const subscribed = yield* Effect.result(sessions.subscribe(sessionId, uri, product.success))
      if (subscribed._tag === "Failure") return reply({ error: { code: -32602, message: subscribed.failure.message } })
      return reply({ result: {} })
    })

  /** A subscription request with no `uri` (or not a string) is told so, not only that its parameters are wrong. */
  const nameSubscriptionParams = (request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) =>
    Effect.gen(function* () {
      const message = ((yield* Effect.orElseSucceed(request.json, () => undefined)) ?? {}) as JsonRpcRequest
      if (message.method !== "resources/subscribe" && message.method !== "resources/unsubscribe") return response
      return HttpServerResponse.jsonUnsafe(
        {
          jsonrpc: "2.0",
          id: message.id ?? null,
          error: {
            code: -32602,
            message: `${message.method} takes params.uri: the resource's URI, a string (productdir://products/{slug}).`
          }
        },
        { status: response.status, headers: response.headers }
      )
    })

  /** initialize's answer with `resources.subscribe`; the session it starts is remembered once the library names it. */
  const answerInitialize = (response: HttpServerResponse.HttpServerResponse, body: Uint8Array) =>
    Effect.gen(function* () {
      const json = JSON.parse(decoder.decode(body)) as { result?: { protocolVersion?: string; capabilities?: { resources?: object } } }
      const capabilities = json.result?.capabilities
      // Only a session's initialize: the stateless revision's discovery has no sessions to notify.
      if (capabilities === undefined || !SESSION_REVISIONS.has(json.result?.protocolVersion ?? "")) return response
      // The library names the session as the response leaves (a pre-response handler of its own, which runs before this one).
      const now = yield* Clock.currentTimeMillis
      yield* HttpEffect.appendPreResponseHandler((request, sent) =>
        Effect.sync(() => {
          const sessionId = sent.headers["mcp-session-id"]
          // Its client's networks: what their shares of sessions and subscriptions count (sessions.ts).
          if (sessionId !== undefined)
            sessions.opened(sessionId, now, clientAddress(request, config.trustProxy), json.result?.protocolVersion)
          return sent
        })
      )
      if (capabilities.resources === undefined) return response
      const patched = {
        ...json,
        result: { ...json.result, capabilities: { ...capabilities, resources: { ...capabilities.resources, subscribe: true } } }
      }
      return HttpServerResponse.jsonUnsafe(patched, { status: response.status, headers: response.headers })
    })

  /** The library's answer to a POST or DELETE, completed with what it does not do over HTTP. */
  const complete = (request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) =>
    Effect.gen(function* () {
      const sessionId = request.headers["mcp-session-id"]
      if (request.method === "DELETE") {
        if (response.status === 204 && sessionId !== undefined) yield* sessions.ended(sessionId)
        return response
      }
      if (request.method !== "POST") return response
      const body = jsonBodyOf(response)
      if (body === undefined) return response
      if (sessionId === undefined && response.status === 200 && contains(body, SERVER_INFO)) return yield* answerInitialize(response, body)
      if (sessionId !== undefined && contains(body, UNSUPPORTED)) return yield* answerSubscription(request, response)
      if (sessionId !== undefined && contains(body, INVALID_PARAMS)) return yield* nameSubscriptionParams(request, response)
      return response
    })

  /** GET /mcp: the session's notification stream. */
  const openStream = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function* () {
      const sessionId = request.headers["mcp-session-id"]
      if (sessionId === undefined) {
        return problem(
          400,
          "GET /mcp opens the stream of a session's notifications: send initialize (POST /mcp) first, then GET with the MCP-Session-Id header it returned and Accept: text/event-stream."
        )
      }
      if (!(request.headers.accept ?? "").includes("text/event-stream")) {
        return problem(406, "Send Accept: text/event-stream: GET /mcp answers with a stream of server-sent events.")
      }
      const version = request.headers["mcp-protocol-version"]
      if (version !== undefined && !SESSION_REVISIONS.has(version)) {
        return problem(
          400,
          `Unsupported MCP-Protocol-Version "${version}": this server's sessions speak ${[...SESSION_REVISIONS].join(", ")}.`
        )
      }
      if (!sessions.knows(sessionId)) {
        return problem(404, "This MCP session is unknown or has ended: send initialize again to start a new one.")
      }
      const events = yield* sessions.stream(sessionId)
      return HttpServerResponse.stream(events, {
        contentType: "text/event-stream",
        headers: { "cache-control": "no-store", "x-accel-buffering": "no" }
      })
    })

  return { complete, openStream }
})
