/**
 * What publishing refuses (Publishing.ts): each failure a door answers in its own way (HTTP: packages/http's
 * handlers/publishers.ts), with words that say what happened.
 */
import { Schema } from "effect"

/** A claim or a verification over its network's budget: what was limited, as a rate limit's answer says it. */
export class PublishingLimited extends Schema.TaggedError<PublishingLimited>()("PublishingLimited", {
  limit: Schema.Number,
  windowSeconds: Schema.Number,
  retryAfterSeconds: Schema.Number,
  resetSeconds: Schema.Number,
  key: Schema.String
}) {}

export class DomainRefused extends Schema.TaggedError<DomainRefused>()("DomainRefused", { claimed: Schema.String, issue: Schema.String }) {
  override get message() {
    return `The domain ${this.issue}`
  }
}

export class DomainTaken extends Schema.TaggedError<DomainTaken>()("DomainTaken", { domain: Schema.String }) {
  override get message() {
    return `${this.domain} already has a verified publisher: a domain has one`
  }
}

export class PublisherNotFound extends Schema.TaggedError<PublisherNotFound>()("PublisherNotFound", { id: Schema.String }) {
  override get message() {
    return `No claim has the id ${this.id}`
  }
}

export class AlreadyVerified extends Schema.TaggedError<AlreadyVerified>()("AlreadyVerified", { domain: Schema.String }) {
  override get message() {
    return `This claim of ${this.domain} is verified already: its key was shown once, when it was verified`
  }
}

export class ProofMissing extends Schema.TaggedError<ProofMissing>()("ProofMissing", {
  domain: Schema.String,
  token: Schema.String,
  http: Schema.String,
  dns: Schema.String
}) {
  override get message() {
    return `No proof of ${this.domain} was found: ${this.http}; ${this.dns}`
  }
}

export class ProblemNotFound extends Schema.TaggedError<ProblemNotFound>()("ProblemNotFound", {
  slug: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `${this.slug} has no problem ${this.problem}`
  }
}

export class PublisherKeyRefused extends Schema.TaggedError<PublisherKeyRefused>()("PublisherKeyRefused", {}) {
  override get message() {
    return "The key is no verified publisher's key"
  }
}

export class NotTheirs extends Schema.TaggedError<NotTheirs>()("NotTheirs", { domain: Schema.String, website: Schema.String }) {
  override get message() {
    return `The publisher of ${this.domain} changes the products whose website is on ${this.domain}; this one's is ${this.website}`
  }
}

/** A change whose fields are wrong: each named, as an import names a record's. */
export class ChangeRefused extends Schema.TaggedError<ChangeRefused>()("ChangeRefused", {
  errors: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))
}) {
  override get message() {
    return `${this.errors.length} field(s) of the change are not right`
  }
}
