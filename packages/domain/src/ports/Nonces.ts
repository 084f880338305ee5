/**
 * Single-use values a client puts in a signed request (the `nonce` of an HTTP
 * message signature): seen once, refused after, until the signature they came
 * with expires. The store keeps them, so a request replayed to another process
 * of the same directory is refused too, and no process holds them in memory.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../support/errors.ts"

export class Nonces extends Context.Service<
  Nonces,
  {
    /**
     * Marks `key` used until `expiresAt`: true the first time, false while an earlier use
     * has not expired. Atomic across every process on the store.
     */
    readonly claim: (key: string, expiresAt: Date) => Effect.Effect<boolean, StoreError>
  }
>()("@productdir/domain/Nonces") {}
