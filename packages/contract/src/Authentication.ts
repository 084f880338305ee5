/**
 * Who is voting (docs/api.md, "Voter identity"), resolved before a vote's
 * handler runs: an agent proven by `Authorization: Bearer <api_key>` or by an
 * HTTP message signature, or else the client's address. Proof is optional;
 * proof that fails is a 401, never silently an anonymous vote.
 */
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import type { Caster } from "@productdir/domain"
import { Unauthorized } from "./problems.ts"

/** The caster of the current request, as the Authentication middleware resolved it. */
export class Caller extends Context.Service<Caller, Caster>()("@productdir/contract/Caller") {}

export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: Caller }>()(
  "@productdir/contract/Authentication",
  {
    error: Unauthorized,
    security: {
      bearer: HttpApiSecurity.bearer.pipe(
        HttpApiSecurity.annotate(
          OpenApi.Description,
          "Optional: the API key from POST /agents. With it the vote counts for the agent (one live vote per product and agent); without it, for the client address. A request may instead be signed (HTTP Message Signatures, RFC 9421, as the Web Bot Auth drafts describe)."
        )
      )
    }
  }
) {}
