/**
 * Every response carries `x-request-id` (the client's, when it sent a sane
 * one), is a problem+json when it is an error, and leaves one structured log
 * line: method, path, status, duration, request id.
 */
import { Cause, Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomUUID } from "node:crypto"
import { MAX_BODY } from "./bodyLimit.ts"
import { unrouted } from "./fallback.ts"
import { ensureProblem, failureToProblem, payloadTooLarge } from "./problemResponses.ts"

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/

export const RequestLog = HttpRouter.middleware((httpEffect) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const incoming = request.headers["x-request-id"]
    const requestId = incoming !== undefined && SANE_ID.test(incoming) ? incoming : randomUUID()
    const started = performance.now()
    // A declared oversize body is refused before a byte of it is read.
    const declared = Number(request.headers["content-length"] ?? 0)
    const response = declared > Number(MAX_BODY)
      ? payloadTooLarge()
      : ensureProblem(
        yield* httpEffect.pipe(
          Effect.catchCause((cause) => (Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : failureToProblem(cause, () => unrouted(request))))
        )
      )
    yield* Effect.logInfo("request").pipe(
      Effect.annotateLogs({
        method: request.method,
        path: request.url.split("?")[0],
        status: response.status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        request_id: requestId
      })
    )
    return HttpServerResponse.setHeader(response, "x-request-id", requestId)
  }), { global: true })
