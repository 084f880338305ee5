/**
 * The domain's failures as HTTP problems, for `Effect.catchTags` in the handlers: every handler names the
 * failures it can meet, and the types say whether it handled them all. What each failure is and its words are
 * the one table's (../refusals.ts); here, only how HTTP answers each kind.
 */
import { Effect } from "effect"
import { BadRequest, Gone, NotFound, ServiceUnavailable } from "@productdir/contract"
import { CallerRefused, unauthorized } from "@productdir/edge/callers/callers"
import { HTTP_DOOR, refusingAt } from "@productdir/edge/refusals"

const http = refusingAt(HTTP_DOOR, {
  notFound: (refused) => Effect.fail(new NotFound({ detail: refused.detail })),
  gone: (refused) => Effect.fail(new Gone({ detail: refused.detail })),
  invalid: (refused) =>
    Effect.fail(
      new BadRequest({ detail: refused.detail, errors: refused.fields.map((f) => ({ path: ["query", f.name], message: f.message })) })
    ),
  // The store failed: never the client's fault. The driver's error was logged where it happened.
  unavailable: (refused) => Effect.fail(new ServiceUnavailable({ detail: refused.detail })),
  // Revoked between the proof and the vote: refused like a revoked key, with its challenge.
  revoked: (refused) => Effect.succeed(unauthorized(new CallerRefused({ proof: "bearer", detail: refused.detail })))
})

export const productNotFound = http.ProductNotFound
export const productRemoved = http.ProductRemoved
export const invalidCursor = http.InvalidCursor
export const versionNotFound = http.VersionNotFound
export const storeUnavailable = http.StoreError
export const agentRevoked = http.AgentRevoked

/** What a read of one product can meet. */
export const readProblems = {
  ProductNotFound: productNotFound,
  ProductRemoved: productRemoved,
  StoreError: storeUnavailable
} as const
