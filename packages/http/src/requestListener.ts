/**
 * The front door: every request Node parses meets this first, and only this,
 * so what every response needs is done in one place, for the reads the cache
 * answers and for everything the Effect application answers alike:
 * - its request id: the client's `X-Request-Id` when it is sane, else a new one,
 *   written into the request (the application reads it there) and the response;
 * - its access-log line, when the response has been sent (or the client left);
 * - its path as the API reads it: `;` and `#` in it are path characters, not a query's start (requestTarget.ts);
 * - the connection policy: an HTTP/1.1 request without `Host`, and any request
 *   with more than one or with one that is not a host and a port, is refused (RFC 9112), as is one that repeats another
 *   header it may carry once (Authorization, Content-Type, …), and while the
 *   server drains every response closes its connection;
 * - then the first handler that takes it: a read the cache holds (installed by
 *   cacheFirstReads.ts), else the application, through Node's request handler
 *   that @effect/platform-node makes for it.
 *
 * It is also how the application is served (`layerServer`): an `HttpServer` over
 * the Node server, whose requests come through here. Refusals that happen before
 * a request exists (malformed HTTP, a CONNECT tunnel) are answered as problems
 * on the socket.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer, References, Scope } from "effect"
import { HttpServer, HttpServerError } from "effect/http"
import * as NetAddress from "effect/net/NetAddress"
import { randomUUID } from "node:crypto"
import { type IncomingMessage, type Server, STATUS_CODES, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { AccessLog } from "./accessLog.ts"
import { Connections } from "./connections.ts"
import { unreadableBody } from "@productdir/edge/bodyPolicy"
import { Lifecycle } from "@productdir/edge/lifecycle"
import { PROBLEM_JSON } from "@productdir/edge/problems/problemResponses"
import { literalPath } from "./requestTarget.ts"

/**
 * Answers the request and returns the template of the route it answered (`/products/{id}`, as the
 * request metrics name routes), or leaves it alone and returns undefined. An answer is written whole,
 * at once (writeHead and end), with the front door's headers first among its own: `x-request-id`
 * (`requestId`), then `connection: close` when `closing` (the server drains).
 */
export type Handler = (request: IncomingMessage, response: ServerResponse, requestId: string, closing: boolean) => string | undefined

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * A transfer coding other than chunked (`Transfer-Encoding: gzip, chunked`), which this server does not decode:
 * Node would hand the application the coded bytes as the body, read as JSON and refused as if the client had sent
 * bad text. RFC 9112 (section 6.1) says 501 Not Implemented.
 */
const foreignCoding = (request: IncomingMessage): string | undefined => {
  const codings = request.headers["transfer-encoding"]
  return codings?.split(",").some((coding) => coding.trim().toLowerCase() !== "chunked") ? codings : undefined
}

/** The request's headers as the body's rules read them (Node gives a list only for Set-Cookie, which no request sends). */
const headersOf = (request: IncomingMessage): Readonly<Record<string, string | undefined>> =>
  request.headers as Readonly<Record<string, string | undefined>>
/** Connections the kernel may queue for the server to accept: Linux's default cap (net.core.somaxconn). */
const LISTEN_BACKLOG = 4096

/**
 * Headers a request may carry once. Node keeps the first of several of each (and drops the rest without a
 * word), but a proxy in front may have read another: routed by another Host (RFC 9112, section 3.2 says a
 * request with more than one is refused), checked another key than the one that counts here, read the body
 * as another type. A request that repeats one of them is refused. Headers whose repeats are one list
 * (X-Forwarded-For, the signature's dictionaries) are joined by Node and read as one.
 */
const SINGLETONS = new Map(
  ["Host", "Authorization", "Proxy-Authorization", "Content-Type", "Content-Length", "If-Modified-Since", "If-Unmodified-Since"].map(
    (name) => [name.toLowerCase(), name]
  )
)
const SINGLETON_LENGTHS = new Set([...SINGLETONS.keys()].map((name) => name.length))

/**
 * A Host header's value as RFC 9112 (section 3.2) takes it: a host (a name, an IPv4 address or a bracketed IPv6
 * one) and an optional port, nothing else. Node passes any value through; the service builds absolute links
 * (and signs its agent card) from it, so one with a space, a path, a user or a fragment is refused.
 */
const HOST_VALUE = /^(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/iu

/** How many Host headers the request carries, and the first other header it carries more than once (its name). */
const singletonsOf = (raw: ReadonlyArray<string>): { readonly hosts: number; readonly repeated: string | undefined } => {
  let hosts = 0
  let seen: Set<string> | undefined
  let repeated: string | undefined
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!
    // A look at each name's length first: most names are none of these.
    if (!SINGLETON_LENGTHS.has(name.length)) continue
    const lower = name.toLowerCase()
    if (!SINGLETONS.has(lower)) continue
    if (lower === "host") hosts++
    else if (seen === undefined) seen = new Set([lower])
    else if (!seen.has(lower)) seen.add(lower)
    else repeated ??= SINGLETONS.get(lower)
  }
  return { hosts, repeated }
}

/** Whether a client's own request id can be echoed and logged as it is. */
export const isSaneRequestId = (id: string): boolean => SANE_ID.test(id)

/** A problem+json answer written straight to Node's response. */
export const writeProblem = (response: ServerResponse, status: number, detail: string, headers: Record<string, string> = {}): void => {
  const body = JSON.stringify({ type: "about:blank", title: STATUS_CODES[status] ?? "Error", status, detail })
  response.writeHead(status, { ...headers, "content-type": PROBLEM_JSON, "content-length": String(Buffer.byteLength(body)) })
  response.end(body)
}

export class RequestListener extends Context.Service<
  RequestListener,
  {
    /** Puts `handler` (a read the cache holds) before the application for the life of the scope. */
    readonly install: (handler: Handler) => Effect.Effect<void, never, Scope.Scope>
    /** Every answer not yet begun closes its connection (the server drains: packages/edge/src/lifecycle.ts). */
    readonly closeAfterAnswers: Effect.Effect<void>
  }
>()("@productdir/http/RequestListener") {}

/** A CONNECT asks for a tunnel, which an API does not give: said as a problem, then the socket is closed. */
const refuseTunnel = (request: IncomingMessage, socket: Duplex): void => {
  const body = JSON.stringify({
    type: "about:blank",
    title: "Method Not Allowed",
    status: 405,
    detail: `${request.method} is not served here: this is an HTTP API, not a proxy. GET / lists every path.`
  })
  socket.on("error", () => socket.destroy())
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: ${PROBLEM_JSON}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nAllow: GET, POST\r\nConnection: close\r\n\r\n${body}`
  )
}

/**
 * The front door over `server`, and the `HttpServer` that serves the application through it on
 * `port` and `host`. Listening stops, and the last connections are cut, when the layer's scope closes
 * (connections.ts drains them first, at shutdown).
 */
export const layer = (server: Server, listen: { readonly port: number; readonly host: string }) =>
  Layer.effectContext(
    Effect.gen(function* () {
      const accessLog = yield* AccessLog
      const lifecycle = yield* Lifecycle
      const connections = yield* Connections
      let first: Handler | undefined
      let application: ((request: IncomingMessage, response: ServerResponse) => void) | undefined
      /** Answers in the making: told to close their connection when the drain begins. */
      const inFlight = new Set<ServerResponse>()

      // With tracing on, the application names each response's trace (apps/api/src/observability/tracing.ts): the line carries it.
      const traced = yield* References.TracerEnabled
      const traceIdOf = (response: ServerResponse): string | undefined => {
        const header = traced ? response.getHeader("traceresponse") : undefined
        return typeof header === "string" ? header.split("-")[1] : undefined
      }

      const log = (
        request: IncomingMessage,
        status: number,
        started: number,
        requestId: string,
        answered: { readonly response?: ServerResponse; readonly route?: string } = {}
      ) => {
        const url = request.url ?? "/"
        const query = url.indexOf("?")
        accessLog.recordNow({
          method: request.method ?? "",
          path: query === -1 ? url : url.slice(0, query),
          status,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          requestId,
          traceId: answered.response === undefined ? undefined : traceIdOf(answered.response),
          route: answered.route
        })
      }

      const handle = (request: IncomingMessage, response: ServerResponse): void => {
        const started = performance.now()
        accessLog.arrived()
        const incoming = request.headers["x-request-id"]
        const requestId = typeof incoming === "string" && isSaneRequestId(incoming) ? incoming : randomUUID()
        const closing = lifecycle.isDraining()
        // A connection over its network's cap (connections.ts): answered, never served, then closed.
        if (connections.overCap(request.socket)) {
          writeProblem(
            response,
            503,
            "Your network holds as many connections to this server as it may at once: reuse the ones you have (keep-alive), or retry shortly.",
            { "x-request-id": requestId, "retry-after": "1", connection: "close" }
          )
          log(request, 503, started, requestId)
          return
        }
        const { hosts, repeated } = singletonsOf(request.rawHeaders)
        const host = request.headers.host
        const badHost = hosts === 1 && host !== undefined && (host.length > 260 || !HOST_VALUE.test(host))
        if ((request.httpVersion === "1.1" && hosts === 0) || hosts > 1 || repeated !== undefined || badHost) {
          writeProblem(
            response,
            400,
            hosts === 0 && request.httpVersion === "1.1"
              ? "An HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2)."
              : hosts > 1
                ? `A request must carry one Host header (RFC 9112, section 3.2); this one carries ${hosts}.`
                : badHost
                  ? "The Host header must be a host name or address with an optional port, such as api.example or 127.0.0.1:3000 (RFC 9112, section 3.2)."
                  : `A request must carry one ${repeated} header; this one carries it more than once, and a proxy in front may have read another than this service would. Send it once.`,
            { "x-request-id": requestId, connection: "close" }
          )
          log(request, 400, started, requestId)
          return
        }
        const coding = foreignCoding(request)
        if (coding !== undefined) {
          writeProblem(
            response,
            501,
            `This server reads request bodies sent with Content-Length or Transfer-Encoding: chunked alone, not Transfer-Encoding: ${coding} (RFC 9112, section 6.1). Send the body uncoded.`,
            { "x-request-id": requestId, connection: "close" }
          )
          log(request, 501, started, requestId)
          return
        }
        // A read the cache holds is written whole at once: logged at once, nothing to watch, its route known.
        const route = first?.(request, response, requestId, closing)
        if (route !== undefined) {
          log(request, response.statusCode, started, requestId, { route })
          return
        }
        request.headers["x-request-id"] = requestId
        if (request.url !== undefined) request.url = literalPath(request.url)
        response.setHeader("x-request-id", requestId)
        if (closing) response.setHeader("connection", "close")
        inFlight.add(response)
        response.once("close", () => {
          inFlight.delete(response)
          // A client that left before its answer: the status nginx logs for it.
          log(request, response.writableFinished ? response.statusCode : 499, started, requestId, { response })
        })
        if (application !== undefined) application(request, response)
        else writeProblem(response, 503, "The server is starting; retry shortly.", { "retry-after": "1" })
      }

      server.on("request", handle)
      // Expect: 100-continue. The body is asked for only when it will be read: one refused on its headers alone (over
      // 16 KiB, content-encoded, in another charset, in a foreign transfer coding) is refused at once, so that the
      // client never sends it; Node's own handling says 100 Continue first, and the client sends the body for nothing.
      // The connection then closes: the client may send the body anyway, and no next request can be told from it.
      server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
        if (unreadableBody(headersOf(request)) === undefined && foreignCoding(request) === undefined) response.writeContinue()
        else response.setHeader("connection", "close")
        handle(request, response)
      })
      // An expectation other than 100-continue: served as if it were not there (RFC 9110 allows it),
      // rather than Node's bare 417.
      server.on("checkExpectation", handle)
      server.on("connect", refuseTunnel)

      yield* Effect.acquireRelease(
        Effect.callback<void, HttpServerError.ServeError>((resume) => {
          const onError = (cause: unknown) => resume(Effect.fail(new HttpServerError.ServeError({ cause })))
          server.once("error", onError)
          // A deep queue of connections waiting to be accepted (the kernel caps it at net.core.somaxconn): with Node's 511,
          // a burst of more connections than that while the loop is busy overflowed it, and a client whose handshake
          // the kernel then dropped believed its connection open, with no server ever holding it.
          server.listen({ port: listen.port, host: listen.host, backlog: LISTEN_BACKLOG }, () => {
            server.off("error", onError)
            resume(Effect.void)
          })
        }),
        () =>
          Effect.sync(() => {
            // Drained already at shutdown (connections.ts): whatever is still open is cut.
            if (server.listening) server.close()
            server.closeAllConnections()
          })
      )
      const bound = server.address()
      const address =
        typeof bound === "string" || bound === null
          ? NetAddress.unixPathAddress(String(bound))
          : yield* Effect.fromResult(NetAddress.inetAddressFromIpString(bound.address, bound.port)).pipe(
              Effect.mapError((cause) => new HttpServerError.ServeError({ cause }))
            )

      const httpServer = HttpServer.make({
        address,
        serve: (httpApp, middleware) =>
          Effect.gen(function* () {
            const scope = Scope.forkUnsafe(yield* Effect.scope, "parallel")
            application = yield* NodeHttpServer.makeHandler(httpApp, { scope, ...(middleware === undefined ? {} : { middleware }) })
            yield* Effect.addFinalizer(() =>
              Effect.sync(() => {
                application = undefined
              })
            )
          })
      })
      const frontDoor = RequestListener.of({
        closeAfterAnswers: Effect.sync(() => {
          for (const response of inFlight) if (!response.headersSent) response.setHeader("connection", "close")
        }),
        install: (handler) =>
          Effect.acquireRelease(
            Effect.sync(() => {
              first = handler
            }),
            () =>
              Effect.sync(() => {
                first = undefined
              })
          )
      })
      return Context.make(HttpServer.HttpServer, httpServer).pipe(Context.add(RequestListener, frontDoor))
    })
  )
