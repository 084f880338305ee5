/**
 * The loggers of the entry points. Servers: JSON lines on stdout when it is
 * not a terminal, written in 50 ms batches (one write per batch instead of
 * one synchronous write per request: a sixth of a read's CPU under load).
 * CLIs: plain lines on stderr, since stdout may carry data (an export).
 * Spans are off: no trace exporter is wired, so they would be built for nobody.
 */
import { Effect, Layer, Logger, type LogLevel, References } from "effect"
import { FailureLogLevel } from "@productdir/store-postgres"
import { logLevelConfig } from "./logLevel.ts"

const batchedJson = Logger.batched(Logger.formatJson, {
  window: "50 millis",
  flush: (lines) => Effect.sync(() => void process.stdout.write(`${lines.join("\n")}\n`))
})

const levelAndTracing = (fallback: LogLevel.LogLevel) =>
  Layer.unwrap(
    Effect.map(logLevelConfig(fallback), (level) =>
      Layer.mergeAll(Layer.succeed(References.MinimumLogLevel, level), Layer.succeed(References.TracerEnabled, false))
    )
  )

/** For servers: info and above by default. */
export const layerServer = Layer.mergeAll(
  Logger.layer([process.stdout.isTTY ? Logger.consolePretty() : batchedJson]),
  levelAndTracing("Info")
)

/**
 * For command-line tools: warnings and above by default, on stderr. A store failure that ends the
 * tool is told in the one line the tool prints for it; its details are there at LOG_LEVEL=debug.
 */
export const layerCli = Layer.mergeAll(
  Logger.layer([Logger.withConsoleError(Logger.formatSimple)]),
  levelAndTracing("Warn"),
  Layer.succeed(FailureLogLevel, "Debug")
)
