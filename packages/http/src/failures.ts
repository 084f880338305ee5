/**
 * Every error the application answers is a problem+json (a 503 also says when
 * to retry), whoever produced it: a handler, the router, the body reader or a
 * defect. The request's id and its log line are the front door's (requestListener.ts);
 * the logs written while the application answers carry the id too.
 */
import { Cause, Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import { unrouted } from "./fallback.ts"
import { ensureProblem, failureToProblem, withRetryAfter } from "@productdir/edge/problems/problemResponses"

export const answerFailures = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const response = yield* httpEffect.pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : failureToProblem(cause, () => unrouted(request))
      ),
      Effect.annotateLogs({ request_id: request.headers["x-request-id"] ?? "" })
    )
    return withRetryAfter(ensureProblem(response))
  })
