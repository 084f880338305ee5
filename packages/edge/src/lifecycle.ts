/**
 * Shutdown that process managers, load balancers and clients can rely on. On
 * SIGTERM (the first step of the shutdown, before the server stops listening):
 * - `/readyz` answers 503 at once, so a balancer stops sending;
 * - the server stops accepting connections, and every response from then on
 *   carries `Connection: close` (packages/http/src/requestListener.ts): each open connection ends after its next answer;
 * - every request written to an open connection is answered, the ones in flight
 *   and the ones that arrive during the drain alike; an idle keep-alive connection
 *   ends at its keep-alive timeout (packages/http/src/connections.ts);
 * and the process exits as soon as the last connection has closed, or after
 * SHUTDOWN_GRACE, when the ones still open are cut (packages/http/src/drainOnShutdown.ts).
 */
import { Context, Effect, Layer } from "effect"

export class Lifecycle extends Context.Service<
  Lifecycle,
  {
    readonly isDraining: () => boolean
    readonly startDraining: Effect.Effect<void>
  }
>()("@productdir/edge/Lifecycle") {
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
