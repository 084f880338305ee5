/** Logs go to stderr, warnings and above unless LOG_LEVEL says otherwise. */
import { Effect, Layer, Logger, References } from "effect"
import { logLevelConfig } from "@productdir/domain"

export const LoggingLive = Layer.unwrap(Effect.gen(function*() {
  const level = yield* logLevelConfig("Warn")
  return Layer.mergeAll(
    Logger.layer([Logger.withConsoleError(Logger.formatSimple)]),
    Layer.succeed(References.MinimumLogLevel, level),
    Layer.succeed(References.TracerEnabled, false)
  )
}))
