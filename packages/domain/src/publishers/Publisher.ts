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
}

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

export const toChallenge = (publisher: Publisher, verifyPath: string): PublisherChallenge => ({
  publisher_id: publisher.id,
  domain: publisher.domain,
  status: publisher.status,
  token: publisher.token,
  http: { url: challengeUrl(publisher.domain) },
  dns: { name: challengeRecord(publisher.domain), type: "TXT" },
  verify_endpoint: verifyPath
})
