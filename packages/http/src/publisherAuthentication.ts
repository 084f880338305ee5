/**
 * The contract's PublisherAuthentication on the server: a record change runs with the publisher its key belongs to,
 * or never runs: no key, a malformed one, or one no verified publisher holds is a 401 with its challenge; a store
 * that cannot check it, a 503.
 */
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { PublisherAuthentication, PublisherCaller } from "@productdir/contract"
import { Publishing } from "@productdir/usecases"
import { proofUnavailable } from "@productdir/edge/callers/callers"
import { problem } from "@productdir/edge/problems/problemResponses"

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i

const refused = (detail: string) =>
  problem(401, detail, { "www-authenticate": `Bearer realm="productdir-publishers", error="invalid_token"` })

export const PublisherAuthenticationLive = Layer.effect(
  PublisherAuthentication,
  Effect.gen(function* () {
    const publishing = yield* Publishing.Publishing
    return PublisherAuthentication.of({
      publisherKey: (handler) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const key = BEARER.exec(request.headers.authorization ?? "")?.[1]
          if (key === undefined) {
            return refused(
              "A record is changed by its publisher: send Authorization: Bearer <api_key>, the key POST /publishers/{publisher_id}/verify gave."
            )
          }
          return yield* publishing.authenticate(key).pipe(
            Effect.matchEffect({
              onFailure: (error) =>
                Effect.succeed(
                  error._tag === "StoreError"
                    ? proofUnavailable()
                    : refused(`${error.message}. Claim the domain with POST /publishers and verify it for a key.`)
                ),
              onSuccess: (publisher) => Effect.provideService(handler, PublisherCaller, publisher)
            })
          )
        })
    })
  })
)
