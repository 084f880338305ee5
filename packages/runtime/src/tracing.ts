/**
 * Traces over OTLP/HTTP, for every entry point (the API and the CLIs), with effect's own exporter
 * (effect/observability): no OpenTelemetry SDK.
 *
 * On when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as it is) or OTEL_EXPORTER_OTLP_ENDPOINT (the
 * collector's base URL; `/v1/traces` is added) is set, unless OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none. Unset, nothing is exported and spans are not even built: the loggers
 * keep `TracerEnabled` off (logging.ts), so the request path pays nothing for tracing.
 *
 * The OpenTelemetry variables it reads: OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL (`http/protobuf`, the
 * default, or `http/json`), OTEL_EXPORTER_OTLP_(TRACES_)HEADERS (`key=value,…`), OTEL_SERVICE_NAME
 * (else the process's own name), OTEL_RESOURCE_ATTRIBUTES, and OTEL_BSP_SCHEDULE_DELAY (ms between
 * exports, 5000 by default). Spans still buffered are sent when the process stops.
 */
import { Config, Context, Duration, Effect, Formatter, Layer, Logger, Option, Schema, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpExporter, OtlpSerialization, OtlpTracer } from "effect/observability"

export interface TracingSettings {
  /** Where spans are POSTed: the collector's `/v1/traces`. */
  readonly url: string
  readonly protocol: "http/protobuf" | "http/json"
  readonly headers: Readonly<Record<string, string>>
  readonly serviceName: Option.Option<string>
  readonly exportInterval: Duration.Duration
}

const optionalString = (name: string) =>
  Config.option(Config.String(name)).pipe(Config.map(Option.filter((value) => value.trim().length > 0)))

const Protocol = (name: string) => Config.option(Config.Literals(["http/protobuf", "http/json"], name))

/** `key=value,key2=value2`, values URI-encoded (the OpenTelemetry form). */
const parseHeaders = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(",")
      .map((pair) => pair.trim())
      .filter((pair) => pair.includes("="))
      .map((pair) => {
        const at = pair.indexOf("=")
        return [pair.slice(0, at).trim(), decodeURIComponent(pair.slice(at + 1).trim())]
      })
  )

const OtlpUrl = (name: string) =>
  Config.option(
    Config.schema(Schema.String.check(Schema.isPattern(/^https?:\/\/\S+$/u, { message: "must be an http:// or https:// URL" })), name)
  )

/** The tracing settings from the environment; none: tracing is off. */
export const tracingConfig: Config.Config<Option.Option<TracingSettings>> = Config.all({
  disabled: Config.Boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
  exporter: optionalString("OTEL_TRACES_EXPORTER"),
  tracesEndpoint: OtlpUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  endpoint: OtlpUrl("OTEL_EXPORTER_OTLP_ENDPOINT"),
  tracesProtocol: Protocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
  protocol: Protocol("OTEL_EXPORTER_OTLP_PROTOCOL"),
  tracesHeaders: optionalString("OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
  headers: optionalString("OTEL_EXPORTER_OTLP_HEADERS"),
  serviceName: optionalString("OTEL_SERVICE_NAME"),
  delay: Config.option(Config.schema(Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThan(0)), "OTEL_BSP_SCHEDULE_DELAY"))
}).pipe(
  Config.map((env): Option.Option<TracingSettings> => {
    if (env.disabled || Option.getOrUndefined(env.exporter)?.toLowerCase() === "none") return Option.none()
    const url = Option.orElse(env.tracesEndpoint, () => Option.map(env.endpoint, (base) => `${base.replace(/\/+$/u, "")}/v1/traces`))
    return Option.map(url, (url) => ({
      url,
      protocol: Option.getOrElse(
        Option.orElse(env.tracesProtocol, () => env.protocol),
        () => "http/protobuf" as const
      ),
      headers: parseHeaders(
        Option.getOrElse(
          Option.orElse(env.tracesHeaders, () => env.headers),
          () => ""
        )
      ),
      serviceName: env.serviceName,
      exportInterval: Duration.millis(Option.getOrElse(env.delay, () => 5_000))
    }))
  })
)

/**
 * A database statement's span is named for the statement, OpenTelemetry's `db.query.summary`
 * ("SELECT products", "INSERT votes"), never its values: effect/sql names it for the database and
 * puts the statement, with `$1` placeholders, in `db.query.text`. Bounded: one name per statement
 * in the code.
 */
export const summarizeStatement = (sql: string): string => {
  const text = sql.replace(/\s+/gu, " ").trim()
  const operation = (/^\(?\s*([A-Za-z]+)/u.exec(text)?.[1] ?? "SQL").toUpperCase()
  const target =
    /\b(?:FROM|INTO|UPDATE|JOIN)\s+("?[A-Za-z_][\w.]*"?)/iu.exec(text)?.[1] ?? /^\(?\s*SELECT\s+([A-Za-z_][\w.]*)\s*\(/iu.exec(text)?.[1]
  return target === undefined ? operation : `${operation} ${target.replaceAll('"', "")}`
}

/** The OTLP tracer, with database spans renamed for their statement as they learn it. */
const statementNamed = (inner: Tracer.Tracer): Tracer.Tracer =>
  Tracer.make({
    span(options) {
      const span = inner.span(options)
      if (options.kind !== "client") return span
      const attribute = span.attribute.bind(span)
      span.attribute = (key, value) => {
        attribute(key, value)
        if (key === "db.query.text" && typeof value === "string") {
          const summary = summarizeStatement(value)
          attribute("db.query.summary", summary)
          // The exporter reads the name when the span ends: the name it was made with is the database's.
          Object.assign(span, { name: summary })
        }
      }
      return span
    },
    ...(inner.context === undefined ? {} : { context: inner.context })
  })

/** The OTLP exporter for `settings`, named `defaultServiceName` unless OTEL_SERVICE_NAME says otherwise. */
export const layerExporter = (settings: TracingSettings, defaultServiceName: string) =>
  Layer.effect(
    Tracer.Tracer,
    Effect.map(
      OtlpTracer.make({
        url: settings.url,
        headers: settings.headers,
        resource: { serviceName: Option.getOrElse(settings.serviceName, () => defaultServiceName) },
        exportInterval: settings.exportInterval
      }),
      statementNamed
    )
  ).pipe(
    Layer.provide(settings.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
    Layer.provide(FetchHttpClient.layer),
    // What sends the spans still buffered when the scope closes (the process stops).
    Layer.provideMerge(OtlpExporter.layerFlusher)
  )

/** The current span's trace and span ids, for a log line; none outside a span. */
export const traceIdsOf = (context: Context.Context<never>): { readonly trace_id: string; readonly span_id: string } | undefined => {
  const span = Context.getOrUndefined(context, Tracer.ParentSpan)
  return span === undefined ? undefined : { trace_id: span.traceId, span_id: span.spanId }
}

/** A JSON line logger whose lines inside a span carry `trace_id` and `span_id`. */
export const jsonWithTraceIds = Logger.make((options): string => {
  const line = Logger.formatStructured.log(options)
  const ids = traceIdsOf(options.fiber.context)
  return Formatter.formatJson(ids === undefined ? line : { ...line, ...ids })
})

/** A plain line logger (the CLIs') that appends ` trace_id=… span_id=…` inside a span. */
export const simpleWithTraceIds = Logger.make((options): string => {
  const line = Logger.formatSimple.log(options)
  const ids = traceIdsOf(options.fiber.context)
  return ids === undefined ? line : `${line} trace_id=${ids.trace_id} span_id=${ids.span_id}`
})
