/**
 * Every response carries `x-request-id` (the client's, when it sent a sane
 * one), is a problem+json when it is an error (a 503 also says when to retry),
 * and leaves one structured log line: method, path, status, duration, request id.
 */
import { Cause, Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomUUID } from "node:crypto"
import { AccessLog } from "./accessLog.ts"
import { unrouted } from "./fallback.ts"
import { ensureProblem, failureToProblem, withRetryAfter } from "./problemResponses.ts"

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Whether a client's own request id can be echoed and logged as it is. */
export const isSaneRequestId = (id: string): boolean => SANE_ID.test(id)

/** The client's request id when it sent a sane one, else a new one. */
export const requestIdOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const incoming = request.headers["x-request-id"]
  return incoming !== undefined && isSaneRequestId(incoming) ? incoming : randomUUID()
}

export const makeRequestLog = AccessLog.useSync(
  (accessLog) =>
    <E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const requestId = requestIdOf(request)
        const started = performance.now()
        const response = withRetryAfter(
          ensureProblem(
            yield* httpEffect.pipe(
              Effect.catchCause((cause) =>
                Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : failureToProblem(cause, () => unrouted(request))
              )
            )
          )
        )
        yield* accessLog.record({
          method: request.method,
          path: request.url.split("?")[0]!,
          status: response.status,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          requestId
        })
        return HttpServerResponse.setHeader(response, "x-request-id", requestId)
      })
)
