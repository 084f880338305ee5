/** LOG_LEVEL, read the same way by every app: case-insensitive (`debug`, `Info`, `WARN`). */
import { Config, ConfigProvider, Effect, type LogLevel } from "effect"

const LEVELS: Record<string, LogLevel.LogLevel> = {
  all: "All",
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  warning: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None"
}

export const logLevelConfig = (fallback: LogLevel.LogLevel): Config.Config<LogLevel.LogLevel> =>
  Config.String("LOG_LEVEL").pipe(
    Config.mapEffect((text) => {
      const name = text.trim().toLowerCase()
      // Its own names only: `constructor` is no level.
      const level = Object.hasOwn(LEVELS, name) ? LEVELS[name] : undefined
      return level !== undefined
        ? Effect.succeed(level)
        : Effect.fail(
            new Config.ConfigError(
              new ConfigProvider.SourceError({ message: `LOG_LEVEL must be one of ${Object.keys(LEVELS).join(", ")}; got "${text}"` })
            )
          )
    }),
    Config.withDefault(fallback)
  )
