/** Votes: one live vote per product and voter, counted exactly under concurrency. */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { CatalogStore, toTrust, VOTE_WEIGHTS, VoteLedger, addressVoter } from "@productdir/domain"
import { freshInput, upsertOne } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

export const votesBehaviours = (it: ContractIt) => {
  // ---- votes ---------------------------------------------------------------
  it.effect("a first vote is recorded and counted", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput({ seed: { up: 2, down: 2 } })
      yield* upsertOne(input)
      const result = yield* ledger.cast({ entity: input.id, voter: addressVoter("alice"), direction: "up" })
      assert.strictEqual(result.status, "recorded")
      assert.deepStrictEqual(result.counters, { up: 3, down: 2 })
      // An address's vote weighs a hundredth: the judgement hardly moves from the seed's even 2/2, the counts do.
      assert.deepStrictEqual([result.weight, result.weighted], [VOTE_WEIGHTS.address, { up: 2_010, down: 2_000 }])
      assert.deepStrictEqual(toTrust(result.counters, result.weighted), {
        trust_score: 50,
        trust_up: 3,
        trust_down: 2,
        trust_ratio: 0.5004,
        evaluation_count: 5
      })
      assert.deepStrictEqual((yield* CatalogStore.use((s) => s.find(input.id))).counters, { up: 3, down: 2 })
    })
  )

  it.effect("the same vote again is unchanged", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput()
      yield* upsertOne(input)
      yield* ledger.cast({ entity: input.id, voter: addressVoter("bob"), direction: "down" })
      const again = yield* ledger.cast({ entity: input.id, voter: addressVoter("bob"), direction: "down" })
      assert.strictEqual(again.status, "unchanged")
      assert.deepStrictEqual(again.counters, { up: 0, down: 1 })
    })
  )

  it.effect("a switched vote moves one count", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput()
      yield* upsertOne(input)
      yield* ledger.cast({ entity: input.id, voter: addressVoter("carol"), direction: "up" })
      const moved = yield* ledger.cast({ entity: input.id, voter: addressVoter("carol"), direction: "down" })
      assert.strictEqual(moved.status, "changed")
      assert.deepStrictEqual(moved.counters, { up: 0, down: 1 })
    })
  )

  it.effect("a vote by slug counts for the product", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput()
      const { slug } = yield* upsertOne(input)
      const result = yield* ledger.cast({ entity: slug, voter: addressVoter("dave"), direction: "up" })
      assert.strictEqual(result.productId, input.id)
      assert.deepStrictEqual(result.counters, { up: 1, down: 0 })
    })
  )

  it.effect("a vote for an unknown or removed product fails and counts nothing", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const store = yield* CatalogStore
      const unknown = yield* Effect.flip(
        ledger.cast({ entity: "00000000-0000-4000-8000-000000000000", voter: addressVoter("x"), direction: "up" })
      )
      assert.strictEqual(unknown._tag, "ProductNotFound")
      const input = freshInput()
      yield* store.upsert([input])
      yield* store.remove([input.id])
      const removed = yield* Effect.flip(ledger.cast({ entity: input.id, voter: addressVoter("x"), direction: "up" }))
      assert.strictEqual(removed._tag, "ProductRemoved")
      yield* store.upsert([input])
      assert.deepStrictEqual((yield* store.find(input.id)).counters, { up: 0, down: 0 })
    })
  )

  it.effect(
    "1,000 concurrent votes from distinct voters are counted exactly",
    () =>
      Effect.gen(function* () {
        const ledger = yield* VoteLedger
        const input = freshInput({ seed: { up: 5, down: 5 } })
        yield* upsertOne(input)
        const results = yield* Effect.forEach(
          Array.from({ length: 1000 }, (_, i) => i),
          (i) => ledger.cast({ entity: input.id, voter: addressVoter(`voter-${i}`), direction: i % 4 === 0 ? "down" : "up" }),
          { concurrency: "unbounded" }
        )
        assert.isTrue(results.every((r) => r.status === "recorded"))
        const p = yield* CatalogStore.use((s) => s.find(input.id))
        assert.deepStrictEqual(p.counters, { up: 5 + 750, down: 5 + 250 })
      }),
    120_000
  )

  it.effect("concurrent identical votes by one voter count once", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput()
      yield* upsertOne(input)
      const results = yield* Effect.forEach(
        Array.from({ length: 50 }),
        () => ledger.cast({ entity: input.id, voter: addressVoter("eve"), direction: "up" }),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter((r) => r.status === "recorded").length, 1)
      const p = yield* CatalogStore.use((s) => s.find(input.id))
      assert.deepStrictEqual(p.counters, { up: 1, down: 0 })
    })
  )

  it.effect("votes leave version and updated_at alone", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const ledger = yield* VoteLedger
      const input = freshInput()
      yield* store.upsert([input])
      const before = yield* store.find(input.id)
      yield* ledger.cast({ entity: input.id, voter: addressVoter("frank"), direction: "up" })
      const after = yield* store.find(input.id)
      assert.deepStrictEqual([after.version, after.updatedAt.getTime()], [before.version, before.updatedAt.getTime()])
    })
  )
}
