/**
 * The drain of a shutdown (packages/edge/src/lifecycle.ts): the front door's connections closed after their answers, then waited for,
 * up to SHUTDOWN_GRACE.
 */
import { Effect, Layer } from "effect"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { Connections } from "./connections.ts"
import { RequestListener } from "./requestListener.ts"
import { Lifecycle } from "@productdir/edge/lifecycle"

/**
 * Starts the drain when the application shuts down. Built after the HTTP server
 * has started serving, so its finalizer runs before the server's own: the drain
 * begins, and ends, while the server still answers.
 */
export const DrainOnShutdown = Layer.effectDiscard(
  Effect.gen(function* () {
    const lifecycle = yield* Lifecycle
    const connections = yield* Connections
    const frontDoor = yield* RequestListener
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
