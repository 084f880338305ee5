/**
 * The API's requests as traces (the exporter and the log lines' ids are packages/runtime's
 * tracing.ts). When tracing is on:
 * - effect's HTTP server makes a span of every request, continuing the caller's `traceparent`
 *   (or `b3`); it is named `GET /products/{id}`, with `http.route` the template and the status;
 * - the response says which trace it was (`traceresponse: 00-<trace>-<span>-01`, W3C Trace Context
 *   level 2), and the access log line carries its `trace_id` (packages/http/src/requestListener.ts reads it there);
 * - the store's calls are child spans: the use cases' and stores' named operations
 *   (`Directory.vote`, `VoteLedger.cast`), and beneath them each statement, named for it
 *   (`SELECT products`) with its text, placeholders and not values, in `db.query.text`;
 * - the reads the cache answers at the front door go through the application instead, so they are
 *   spans too (packages/http/src/cacheFirstReads.ts is not installed: a traced read costs more, an untraced one nothing).
 * When tracing is off none of this is installed, and effect's server skips its tracing path.
 */
import { Effect, Layer, References } from "effect"
import { HttpMiddleware, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { methodOf, routeOf } from "./routeTemplates.ts"

/** Whether this process exports traces (packages/runtime's loggers turn it on with an OTLP endpoint). */
export const tracingEnabled: Effect.Effect<boolean> = Effect.gen(function* () {
  return yield* References.TracerEnabled
})

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** `GET /products/{id}`: OpenTelemetry's name for an HTTP server span (read only when a span is made). */
export const SpanNamesLive = Layer.succeed(HttpMiddleware.SpanNameGenerator, (request) => {
  const route = routeOf(pathOf(request.url))
  return `${methodOf(request.method)} ${route}`
})

/** Inside each request's span: its route as a template, and the trace named in the response. */
const traceResponse = HttpRouter.middleware(
  (httpEffect) =>
    Effect.flatMap(Effect.option(Effect.currentSpan), (span) =>
      span._tag === "None"
        ? httpEffect
        : Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
            Effect.map(httpEffect, (response) => {
              // After routing, which sets the router's own form (`/products/:id`).
              span.value.attribute("http.route", routeOf(pathOf(request.url)))
              return HttpServerResponse.setHeader(
                response,
                "traceresponse",
                `00-${span.value.traceId}-${span.value.spanId}-${span.value.sampled ? "01" : "00"}`
              )
            })
          )
    ),
  { global: true }
)

/** The middleware of the application's traced requests, when tracing is on; nothing otherwise. */
export const TraceResponsesLive = Layer.unwrap(Effect.map(tracingEnabled, (enabled) => (enabled ? traceResponse : Layer.empty)))
