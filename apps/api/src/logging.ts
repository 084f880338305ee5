/** Logs: JSON lines when stdout is not a terminal (collectors), pretty otherwise; level from LOG_LEVEL. */
import { Config, Effect, Layer, Logger, References } from "effect"

export const LoggingLive = Layer.unwrap(Effect.gen(function*() {
  const level = yield* Config.LogLevel("LOG_LEVEL").pipe(Config.withDefault("Info" as const))
  const logger = process.stdout.isTTY ? Logger.consolePretty() : Logger.consoleJson
  return Layer.mergeAll(Logger.layer([logger]), Layer.succeed(References.MinimumLogLevel, level))
}))
