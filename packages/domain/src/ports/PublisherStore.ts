/** Publishers: claims of domains, their proofs and their keys. */
import { Context, type Effect, type Option } from "effect"
import type { StoreError } from "../support/errors.ts"
import type { ProofMethod, Publisher, PublisherId } from "../publishers/Publisher.ts"

export class PublisherStore extends Context.Service<
  PublisherStore,
  {
    /** Keeps a new, pending claim. */
    readonly claim: (publisher: Publisher) => Effect.Effect<Publisher, StoreError>
    readonly find: (id: PublisherId) => Effect.Effect<Option.Option<Publisher>, StoreError>
    /** The verified publisher of a domain, if any. */
    readonly verifiedFor: (domain: string) => Effect.Effect<Option.Option<Publisher>, StoreError>
    /**
     * Marks a pending claim proven, with its key's hash: the one verified publisher of its domain. None when another
     * publisher verified the domain first (or this one is no longer pending): the proof earns nothing twice.
     */
    readonly verify: (
      id: PublisherId,
      proof: { readonly method: ProofMethod; readonly keyHash: string; readonly at: Date }
    ) => Effect.Effect<Option.Option<Publisher>, StoreError>
    /** Verified publishers whose proof was last read (or first proven) before `before`: a check's round, at most `limit`. */
    readonly due: (before: Date, limit: number) => Effect.Effect<ReadonlyArray<Publisher>, StoreError>
    /**
     * What a check of a verified publisher's proof found: found, its failures reset; not found (`note` says why), one
     * more in a row, and at `suspendAfter` in a row it is suspended. None when it is no longer verified.
     */
    readonly recordCheck: (
      id: PublisherId,
      check: { readonly at: Date; readonly note: string | null; readonly suspendAfter: number }
    ) => Effect.Effect<Option.Option<Publisher>, StoreError>
    /** Every claim and publisher, oldest first. */
    readonly list: Effect.Effect<ReadonlyArray<Publisher>, StoreError>
    /**
     * An operator's suspension (of a verified publisher) or restoration (of a suspended one, its checks' count reset):
     * the publisher as it is after, or none when it was not in the state the change needs (or, restored, its domain has
     * another verified publisher now).
     */
    readonly setStatus: (
      id: PublisherId,
      change: { readonly to: "verified" | "suspended"; readonly at: Date; readonly note: string }
    ) => Effect.Effect<Option.Option<Publisher>, StoreError>
    /** The verified publisher a key belongs to, by its hash. */
    readonly byKeyHash: (keyHash: string) => Effect.Effect<Option.Option<Publisher>, StoreError>
  }
>()("@productdir/domain/PublisherStore") {}
