/**
 * Publishers (docs/decisions.md, "Publishers") on every store: a claim kept pending; a proof makes it the verified
 * publisher of its domain, findable by its key's hash; a domain has one verified publisher, and a second proof of it
 * earns nothing.
 */
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { type Publisher, type PublisherId, PublisherStore } from "@productdir/domain"
import type { ContractIt } from "./contractIt.ts"

let counter = 0
const claimOf = (domain: string): Publisher => ({
  id: randomUUID() as PublisherId,
  domain,
  status: "pending",
  token: `token-${++counter}`,
  method: null,
  keyHash: null,
  createdAt: new Date(1_700_000_000_000),
  verifiedAt: null
})

export const publishersBehaviours = (it: ContractIt) => {
  it.effect("a claim is kept pending; its proof makes it the domain's one verified publisher, found by its key", () =>
    Effect.gen(function* () {
      const store = yield* PublisherStore
      const domain = `vendor-${randomUUID().slice(0, 8)}.example`
      const first = yield* store.claim(claimOf(domain))
      const second = yield* store.claim(claimOf(domain))
      assert.deepStrictEqual(Option.getOrUndefined(yield* store.find(first.id)), first)
      assert.isTrue(Option.isNone(yield* store.verifiedFor(domain)))

      const at = new Date(1_700_000_060_000)
      const verified = Option.getOrThrow(yield* store.verify(first.id, { method: "dns", keyHash: `hash-${first.id}`, at }))
      assert.deepStrictEqual(verified, { ...first, status: "verified", method: "dns", keyHash: `hash-${first.id}`, verifiedAt: at })
      assert.deepStrictEqual(Option.getOrUndefined(yield* store.verifiedFor(domain)), verified)
      assert.deepStrictEqual(Option.getOrUndefined(yield* store.byKeyHash(`hash-${first.id}`)), verified)

      // The domain is taken: the other claim's proof earns nothing, and a claim is proven once.
      assert.isTrue(Option.isNone(yield* store.verify(second.id, { method: "http", keyHash: `hash-${second.id}`, at })))
      assert.isTrue(Option.isNone(yield* store.verify(first.id, { method: "http", keyHash: "another", at })))
      assert.isTrue(Option.isNone(yield* store.byKeyHash(`hash-${second.id}`)))
      assert.strictEqual(Option.getOrThrow(yield* store.find(second.id)).status, "pending")
      assert.isTrue(Option.isNone(yield* store.find(randomUUID() as PublisherId)))
    })
  )
}
