/**
 * Rate limits: token buckets that never overdraw, refill with time, and take
 * from every bucket or none; a vote cast within limits (VoteLedger.castWithin)
 * draws on the same buckets and records nothing when refused.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { addressVoter, CatalogStore, type Limit, RateLimits, VoteLedger } from "@productdir/domain"
import { freshInput, rng, upsertOne } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

const key = (label: string) => `contract:${label}:${rng.uuid()}`

export const limitsBehaviours = (it: ContractIt) => {
  it.effect("a bucket allows its size, then refuses with the wait until a token is back", () =>
    Effect.gen(function* () {
      const limits = yield* RateLimits
      const limit: Limit = { key: key("size"), max: 3, windowSeconds: 60 }
      const decisions = yield* Effect.forEach(Array.from({ length: 4 }), () => limits.take([limit]))
      assert.deepStrictEqual(
        decisions.map((d) => d._tag),
        ["Allowed", "Allowed", "Allowed", "Limited"]
      )
      assert.deepStrictEqual(
        decisions.slice(0, 3).map((d) => (d._tag === "Allowed" ? d.remaining : -1)),
        [2, 1, 0]
      )
      const limited = decisions[3]!
      assert.deepStrictEqual(limited, {
        _tag: "Limited",
        limit: 3,
        windowSeconds: 60,
        retryAfterSeconds: 20,
        resetSeconds: 60,
        key: limit.key
      })
      // One token comes back every 20 s.
      yield* TestClock.adjust("20 seconds")
      assert.strictEqual((yield* limits.take([limit]))._tag, "Allowed")
      assert.strictEqual((yield* limits.take([limit]))._tag, "Limited")
    })
  )

  it.effect("a request naming several buckets takes from all of them or from none", () =>
    Effect.gen(function* () {
      const limits = yield* RateLimits
      const wide: Limit = { key: key("wide"), max: 10, windowSeconds: 60 }
      const narrow: Limit = { key: key("narrow"), max: 1, windowSeconds: 60 }
      assert.strictEqual((yield* limits.take([wide, narrow]))._tag, "Allowed")
      // The narrow bucket is empty: refused, and the wide one keeps its tokens.
      for (let i = 0; i < 5; i++) assert.strictEqual((yield* limits.take([wide, narrow]))._tag, "Limited")
      const alone = yield* limits.take([wide])
      assert.deepStrictEqual(alone._tag === "Allowed" ? alone.remaining : -1, 8)
    })
  )

  it.effect("a limit of 0 is off", () =>
    Effect.gen(function* () {
      const limits = yield* RateLimits
      const off: Limit = { key: key("off"), max: 0, windowSeconds: 60 }
      for (let i = 0; i < 20; i++) assert.strictEqual((yield* limits.take([off]))._tag, "Allowed")
    })
  )

  it.effect("a daily bucket refills over the day", () =>
    Effect.gen(function* () {
      const limits = yield* RateLimits
      const daily: Limit = { key: key("daily"), max: 2, windowSeconds: 86_400 }
      yield* limits.take([daily])
      yield* limits.take([daily])
      const limited = yield* limits.take([daily])
      assert.deepStrictEqual(limited, {
        _tag: "Limited",
        limit: 2,
        windowSeconds: 86_400,
        // One token back in half a day; the bucket full again in a whole one.
        retryAfterSeconds: 43_200,
        resetSeconds: 86_400,
        key: daily.key
      })
      yield* TestClock.adjust("12 hours")
      assert.strictEqual((yield* limits.take([daily]))._tag, "Allowed")
    })
  )

  it.effect("concurrent takes never overdraw a bucket", () =>
    Effect.gen(function* () {
      const limits = yield* RateLimits
      const limit: Limit = { key: key("race"), max: 25, windowSeconds: 3600 }
      const decisions = yield* Effect.forEach(Array.from({ length: 60 }), () => limits.take([limit]), { concurrency: "unbounded" })
      assert.strictEqual(decisions.filter((d) => d._tag === "Allowed").length, 25)
    })
  )

  // ---- votes within limits ---------------------------------------------------
  it.effect("a vote within its limits is cast and takes a token from each bucket", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput()
      yield* upsertOne(input)
      const voter: Limit = { key: key("voter"), max: 2, windowSeconds: 60 }
      const address: Limit = { key: key("address"), max: 10, windowSeconds: 60 }
      const cast = yield* ledger.castWithin([voter, address], { entity: input.id, voter: addressVoter("within"), direction: "up" })
      assert.strictEqual(cast._tag, "Cast")
      if (cast._tag !== "Cast") return
      assert.deepStrictEqual(cast.decision, { _tag: "Allowed", limit: 2, windowSeconds: 60, remaining: 1, resetSeconds: 30 })
      assert.strictEqual(cast.result.status, "recorded")
      assert.deepStrictEqual(cast.result.counters, { up: 1, down: 0 })
      const left = yield* RateLimits.use((limits) => limits.take([address]))
      assert.deepStrictEqual(left._tag === "Allowed" ? left.remaining : -1, 8)
    })
  )

  it.effect("a vote over a limit is refused, records nothing and takes from no bucket", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const [first, second] = [freshInput(), freshInput()]
      yield* upsertOne(first)
      yield* upsertOne(second)
      const voter: Limit = { key: key("over"), max: 1, windowSeconds: 60 }
      const address: Limit = { key: key("wide"), max: 10, windowSeconds: 60 }
      const ballot = (id: string) => ({ entity: id, voter: addressVoter("eager"), direction: "down" as const, reason: "Too eager" })
      assert.strictEqual((yield* ledger.castWithin([voter, address], ballot(first.id)))._tag, "Cast")
      const refused = yield* ledger.castWithin([voter, address], ballot(second.id))
      assert.deepStrictEqual(refused, {
        _tag: "Limited",
        decision: { _tag: "Limited", limit: 1, windowSeconds: 60, retryAfterSeconds: 60, resetSeconds: 60, key: voter.key }
      })
      assert.deepStrictEqual((yield* CatalogStore.use((s) => s.find(second.id))).counters, { up: 0, down: 0 })
      const left = yield* RateLimits.use((limits) => limits.take([address]))
      assert.deepStrictEqual(left._tag === "Allowed" ? left.remaining : -1, 8)
      // The bucket refills, and the same vote is cast.
      yield* TestClock.adjust("60 seconds")
      assert.strictEqual((yield* ledger.castWithin([voter, address], ballot(second.id)))._tag, "Cast")
    })
  )

  it.effect("votes within limits and other takes share the buckets, and a limit of 0 is off", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput()
      yield* upsertOne(input)
      const shared: Limit = { key: key("shared"), max: 1, windowSeconds: 60 }
      assert.strictEqual((yield* RateLimits.use((limits) => limits.take([shared])))._tag, "Allowed")
      const vote = { entity: input.id, voter: addressVoter("sharer"), direction: "up" as const }
      assert.strictEqual((yield* ledger.castWithin([shared], vote))._tag, "Limited")
      const off: Limit = { key: key("off-vote"), max: 0, windowSeconds: 60 }
      const cast = yield* ledger.castWithin([off], vote)
      assert.deepStrictEqual(cast._tag === "Cast" ? cast.result.counters : undefined, { up: 1, down: 0 })
    })
  )

  it.effect("a vote within limits for an unknown product fails as a cast does", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const limit: Limit = { key: key("unknown"), max: 5, windowSeconds: 60 }
      const error = yield* Effect.flip(ledger.castWithin([limit], { entity: rng.uuid(), voter: addressVoter("lost"), direction: "up" }))
      assert.strictEqual(error._tag, "ProductNotFound")
    })
  )

  it.effect("concurrent votes within limits never overdraw a bucket, and each allowed vote counts", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput()
      yield* upsertOne(input)
      const limit: Limit = { key: key("vote-race"), max: 10, windowSeconds: 3600 }
      const outcomes = yield* Effect.forEach(
        Array.from({ length: 30 }, (_, i) => i),
        (i) => ledger.castWithin([limit], { entity: input.id, voter: addressVoter(`racer-${i}`), direction: "up" }),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(outcomes.filter((o) => o._tag === "Cast").length, 10)
      assert.deepStrictEqual((yield* CatalogStore.use((s) => s.find(input.id))).counters, { up: 10, down: 0 })
    })
  )
}
