/**
 * Which publisher is changing a record (docs/decisions.md, "Publishers"): the key its proof of a domain earned, as
 * `Authorization: Bearer <api_key>`. Required: a change without a publisher's key is a 401.
 */
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import type { Publisher } from "@productdir/domain"
import { Unauthorized } from "./problems.ts"

/** The publisher of the current request, as PublisherAuthentication resolved it. */
export class PublisherCaller extends Context.Service<PublisherCaller, Publisher>()("@productdir/contract/PublisherCaller") {}

export class PublisherAuthentication extends HttpApiMiddleware.Service<PublisherAuthentication, { provides: PublisherCaller }>()(
  "@productdir/contract/PublisherAuthentication",
  {
    error: Unauthorized,
    security: {
      publisherKey: HttpApiSecurity.bearer.pipe(
        HttpApiSecurity.annotate(
          OpenApi.Description,
          "Required: the publisher key from POST /publishers/{publisher_id}/verify. It changes the products whose website is on the publisher's domain."
        )
      )
    }
  }
) {}
