/**
 * Shutdown that process managers, load balancers and clients can rely on. On
 * SIGTERM (the first step of the shutdown, before the server stops listening):
 * - `/readyz` answers 503 at once, so a balancer stops sending;
 * - the server stops accepting connections, and every response from then on
 *   carries `Connection: close` (frontDoor.ts): each open connection ends after its next answer;
 * - every request written to an open connection is answered, the ones in flight
 *   and the ones that arrive during the drain alike; an idle keep-alive connection
 *   ends at its keep-alive timeout (connections.ts);
 * and the process exits as soon as the last connection has closed, or after
 * SHUTDOWN_GRACE, when the ones still open are cut.
 */
import { Context, Effect, Layer } from "effect"
import { ApiConfig } from "../ApiConfig.ts"
import { Connections } from "./connections.ts"
import { FrontDoor } from "./frontDoor.ts"

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

/**
 * Starts the drain when the application shuts down. Built after the HTTP server
 * has started serving, so its finalizer runs before the server's own: the drain
 * begins, and ends, while the server still answers.
 */
export const DrainOnShutdown = Layer.effectDiscard(
  Effect.gen(function* () {
    const lifecycle = yield* Lifecycle
    const connections = yield* Connections
    const frontDoor = yield* FrontDoor
    const config = yield* ApiConfig
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* lifecycle.startDraining
        yield* frontDoor.closeAfterAnswers
        yield* Effect.logInfo(`shutting down: draining connections (${connections.open()} open)`)
        yield* connections.drain(config.shutdownGrace)
      })
    )
  })
)
