/**
 * The contract's Authentication middleware on the server: the vote's handler
 * runs with the request's Caller (packages/edge/src/callers/callers.ts), or never runs: a proof that
 * fails is a 401 with its challenge, a store that cannot check one a 503.
 */
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { Authentication, Caller } from "@productdir/contract"
import { Callers, refusalResponse } from "@productdir/edge/callers/callers"

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const callers = yield* Callers
    return Authentication.of({
      // The scheme's decoded credential is not used: Callers reads the key or the signature from the request itself.
      bearer: (handler) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          return yield* Effect.matchEffect(callers.identify(request), {
            onFailure: (error) => Effect.succeed(refusalResponse(error)),
            onSuccess: (caller) => Effect.provideService(handler, Caller, caller)
          })
        })
    })
  })
)
