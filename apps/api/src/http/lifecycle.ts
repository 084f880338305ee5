/**
 * Shutdown that process managers and load balancers can rely on. On SIGTERM
 * (the first step of the shutdown, before the server stops listening):
 * - `/readyz` answers 503 at once, so a balancer stops sending;
 * - every response from then on carries `Connection: close`, so keep-alive
 *   connections end after their in-flight request instead of taking new ones;
 * - a request that still arrives on an open connection is refused with a 503
 *   problem (logged, with `Retry-After`), never cut off;
 * and the server, no longer listening, ends as soon as its last connection
 * does: no waiting out SHUTDOWN_GRACE when nothing is in flight.
 */
import { Context, Effect, Layer } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { problem } from "./problemResponses.ts"

export class Lifecycle extends Context.Service<
  Lifecycle,
  {
    readonly isDraining: () => boolean
    readonly startDraining: Effect.Effect<void>
  }
>()("@productdir/api/Lifecycle") {
  static readonly layer = Layer.sync(Lifecycle, () => {
    let draining = false
    return Lifecycle.of({
      isDraining: () => draining,
      startDraining: Effect.sync(() => {
        draining = true
      })
    })
  })
}

/** Refuses new work while draining, and closes each connection after its response. */
export const drain = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | Lifecycle | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const lifecycle = yield* Lifecycle
    if (lifecycle.isDraining()) {
      return problem(503, "The server is shutting down; retry on a new connection.", { connection: "close", "retry-after": "1" })
    }
    const response = yield* httpEffect
    return lifecycle.isDraining() ? HttpServerResponse.setHeader(response, "connection", "close") : response
  })

/**
 * Starts the drain when the application shuts down. Built after the HTTP server
 * has started serving, so its finalizer runs before the server's own: the drain
 * begins while the server still answers.
 */
export const DrainOnShutdown = Layer.effectDiscard(
  Effect.gen(function* () {
    const lifecycle = yield* Lifecycle
    yield* Effect.addFinalizer(() => Effect.andThen(lifecycle.startDraining, Effect.logInfo("shutting down: draining connections")))
  })
)
