/** Where a publisher's proof of its domain is read: its web site and its DNS (docs/decisions.md, "Publishers"). */
import { Context, type Effect, Schema } from "effect"

/** A proof that could not be read: the site or the DNS did not answer, or answered what a proof is not. */
export class ProofUnreadable extends Schema.TaggedError<ProofUnreadable>()("ProofUnreadable", {
  where: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.where}: ${this.reason}`
  }
}

export class DomainProofs extends Context.Service<
  DomainProofs,
  {
    /** The body served at https://<domain>/.well-known/productdir-challenge, trimmed. */
    readonly httpToken: (domain: string) => Effect.Effect<string, ProofUnreadable>
    /** The TXT records of _productdir.<domain>, each one string. */
    readonly dnsTexts: (domain: string) => Effect.Effect<ReadonlyArray<string>, ProofUnreadable>
  }
>()("@productdir/domain/DomainProofs") {}
