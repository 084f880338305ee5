/**
 * Publishers (docs/decisions.md, "Publishers"): whoever proves control of a domain (a token served over HTTPS at
 * `/.well-known/productdir-challenge`, or a DNS TXT record `_productdir.<domain>`) vouches for the products whose
 * website is on it, and may change their records with the key the proof earned. A claim is `pending` until proven,
 * then `verified`; a publisher whose proof is gone is `suspended`.
 */
import { Schema } from "effect"

export const PublisherId = Schema.String.check(Schema.isUUID())
  .pipe(Schema.brand("PublisherId"))
  .annotate({ identifier: "PublisherId", description: "Publisher identifier (UUID)" })
export type PublisherId = typeof PublisherId.Type

export const PublisherStatus = Schema.Literals(["pending", "verified", "suspended"])
export type PublisherStatus = typeof PublisherStatus.Type

export const ProofMethod = Schema.Literals(["http", "dns"])
export type ProofMethod = typeof ProofMethod.Type

/** A publisher as the store keeps it. */
export interface Publisher {
  readonly id: PublisherId
  /** Its registrable domain (domains.ts). */
  readonly domain: string
  readonly status: PublisherStatus
  /** The challenge its proof must show. */
  readonly token: string
  readonly method: ProofMethod | null
  /** SHA-256 of its key, once verified. */
  readonly keyHash: string | null
  readonly createdAt: Date
  readonly verifiedAt: Date | null
  /** Checks of its proof in a row that did not find it (reset by one that does). */
  readonly failedChecks: number
  /** When its proof was last read again, and what was found wrong (null when it was found). */
  readonly checkedAt: Date | null
  readonly checkNote: string | null
  readonly suspendedAt: Date | null
}

/** Checks in a row that do not find a verified publisher's proof before it is suspended. */
export const SUSPEND_AFTER_FAILED_CHECKS = 3

/** Where a domain's proof is looked for. */
export const CHALLENGE_PATH = "/.well-known/productdir-challenge"
export const DNS_LABEL = "_productdir"

export const challengeUrl = (domain: string): string => `https://${domain}${CHALLENGE_PATH}`
export const challengeRecord = (domain: string): string => `${DNS_LABEL}.${domain}`

export const PublisherClaim = Schema.Struct({
  domain: Schema.String.annotate({ description: "The domain to publish for: its registrable domain is claimed", examples: ["acme.com"] })
}).annotate({ identifier: "PublisherClaim" })

export const PublisherChallenge = Schema.Struct({
  publisher_id: PublisherId,
  domain: Schema.String,
  status: PublisherStatus,
  token: Schema.String.annotate({ description: "What the proof must show" }),
  http: Schema.Struct({
    url: Schema.String.annotate({ description: "Serve the token as this URL's whole body (text/plain)" })
  }),
  dns: Schema.Struct({
    name: Schema.String.annotate({ description: "Or publish a TXT record of this name whose value is the token" }),
    type: Schema.Literal("TXT")
  }),
  verify_endpoint: Schema.String.annotate({ description: "POST here once the token is served" })
}).annotate({ identifier: "PublisherChallenge", description: "A claim, and how to prove it" })
export type PublisherChallenge = typeof PublisherChallenge.Type

export const PublisherCredentials = Schema.Struct({
  publisher_id: PublisherId,
  domain: Schema.String,
  status: PublisherStatus,
  method: ProofMethod,
  verified_at: Schema.String,
  api_key: Schema.String.annotate({
    description: "Shown once: send it as `Authorization: Bearer <api_key>` to change the domain's products"
  })
}).annotate({ identifier: "PublisherCredentials", description: "A proven publisher and its key, shown once" })
export type PublisherCredentials = typeof PublisherCredentials.Type

export const PublisherView = Schema.Struct({
  publisher_id: PublisherId,
  domain: Schema.String,
  status: PublisherStatus,
  method: Schema.NullOr(ProofMethod),
  verified_at: Schema.NullOr(Schema.String),
  last_checked_at: Schema.NullOr(Schema.String).annotate({ description: "When the proof was last read again" }),
  failed_checks: Schema.Int.annotate({
    description: `Checks in a row that did not find the proof; ${SUSPEND_AFTER_FAILED_CHECKS} suspend the publisher`
  }),
  note: Schema.NullOr(Schema.String).annotate({ description: "What the last check found wrong, or why the publisher is suspended" }),
  suspended_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "Publisher", description: "A claim or a publisher: its status and its proof's checks" })
export type PublisherView = typeof PublisherView.Type

export const toPublisherView = (p: Publisher): PublisherView => ({
  publisher_id: p.id,
  domain: p.domain,
  status: p.status,
  method: p.method,
  verified_at: p.verifiedAt?.toISOString() ?? null,
  last_checked_at: p.checkedAt?.toISOString() ?? null,
  failed_checks: p.failedChecks,
  note: p.checkNote,
  suspended_at: p.suspendedAt?.toISOString() ?? null
})

export const toChallenge = (publisher: Publisher, verifyPath: string): PublisherChallenge => ({
  publisher_id: publisher.id,
  domain: publisher.domain,
  status: publisher.status,
  token: publisher.token,
  http: { url: challengeUrl(publisher.domain) },
  dns: { name: challengeRecord(publisher.domain), type: "TXT" },
  verify_endpoint: verifyPath
})
