/**
 * The loggers of the entry points, and their tracing (tracing.ts). Servers: JSON lines on stdout
 * when it is not a terminal, written in 50 ms batches (one write per batch instead of one
 * synchronous write per request, a large share of a read's CPU under load). CLIs: plain lines on stderr,
 * since stdout may carry data (an export).
 * Spans are off unless an OTLP endpoint is configured: then they are exported, and log lines written
 * inside a span carry its `trace_id` and `span_id`. Without one they would be built for nobody.
 */
import { Effect, Layer, Logger, type LogLevel, Option, References } from "effect"
import { FailureLogLevel } from "@productdir/store-postgres"
import { logLevelConfig } from "./logLevel.ts"
import { jsonWithTraceIds, layerExporter, simpleWithTraceIds, tracingConfig } from "./tracing.ts"

const batched = (format: Logger.Logger<unknown, string>) =>
  Logger.batched(format, {
    window: "50 millis",
    flush: (lines) => Effect.sync(() => void process.stdout.write(`${lines.join("\n")}\n`))
  })

/** The log level, and the tracer when one is configured (`serviceName` unless OTEL_SERVICE_NAME says otherwise). */
const levelAndTracing = (fallback: LogLevel.LogLevel, serviceName: string, loggers: (traced: boolean) => Layer.Layer<never>) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const level = yield* logLevelConfig(fallback)
      const tracing = yield* tracingConfig
      const base = Layer.mergeAll(
        Layer.succeed(References.MinimumLogLevel, level),
        Layer.succeed(References.TracerEnabled, Option.isSome(tracing)),
        loggers(Option.isSome(tracing))
      )
      return Option.match(tracing, {
        onNone: () => base,
        onSome: (settings) => Layer.merge(base, layerExporter(settings, serviceName))
      })
    })
  )

/** For servers: info and above by default. */
export const layerServerFor = (serviceName: string) =>
  levelAndTracing("Info", serviceName, (traced) =>
    Logger.layer([process.stdout.isTTY ? Logger.consolePretty() : batched(traced ? jsonWithTraceIds : Logger.formatJson)])
  )

/** The API's. */
export const layerServer = layerServerFor("productdir-api")

/**
 * For command-line tools: warnings and above by default, on stderr. A store failure that ends the
 * tool is told in the one line the tool prints for it; its details are there at LOG_LEVEL=debug.
 */
export const layerCliFor = (serviceName: string) =>
  Layer.mergeAll(
    levelAndTracing("Warn", serviceName, (traced) =>
      Logger.layer([Logger.withConsoleError(traced ? simpleWithTraceIds : Logger.formatSimple)])
    ),
    Layer.succeed(FailureLogLevel, "Debug")
  )

export const layerCli = layerCliFor("productdir")
