/** CLI logs go to stderr (stdout may carry an export), warnings and above unless LOG_LEVEL says otherwise. */
import { Config, Effect, Layer, Logger, References } from "effect"

export const LoggingLive = Layer.unwrap(Effect.gen(function*() {
  const level = yield* Config.LogLevel("LOG_LEVEL").pipe(Config.withDefault("Warn" as const))
  return Layer.mergeAll(
    Logger.layer([Logger.withConsoleError(Logger.formatSimple)]),
    Layer.succeed(References.MinimumLogLevel, level),
    Layer.succeed(References.TracerEnabled, false)
  )
}))
