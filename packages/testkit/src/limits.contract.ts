/** Rate limits: token buckets that never overdraw, refill with time, and take from every bucket or none. */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { type Limit, RateLimits } from "@productdir/domain"
import { rng } from "./inputs.ts"
import type { ContractIt } from "./suite.ts"

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
      assert.deepStrictEqual(limited, { _tag: "Limited", limit: 3, windowSeconds: 60, retryAfterSeconds: 20 })
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
      assert.deepStrictEqual(limited, { _tag: "Limited", limit: 2, windowSeconds: 86_400, retryAfterSeconds: 43_200 })
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
}
