/** Settings, nonces and the job lock. */
import { assert } from "@effect/vitest"
import { Clock, Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { JobLock, Nonces, Settings } from "@productdir/domain"
import { rng } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

export const jobsBehaviours = (it: ContractIt) => {
  // ---- settings ---------------------------------------------------------------
  it.effect("a setting keeps its first value", () =>
    Effect.gen(function* () {
      const settings = yield* Settings
      const key = `contract-${rng.uuid()}`
      assert.strictEqual(yield* settings.getOrInit(key, "first"), "first")
      assert.strictEqual(yield* settings.getOrInit(key, "second"), "first")
    })
  )

  // ---- job lock ---------------------------------------------------------------
  it.effect("the job lock lets one holder in and tells the other it is busy", () =>
    Effect.gen(function* () {
      const lock = yield* JobLock
      const name = `contract-${rng.uuid()}`
      const inner = yield* lock.withLock(name, { wait: false }, lock.withLock(name, { wait: false }, Effect.succeed("inner")))
      assert.deepStrictEqual(inner, { _tag: "Ran", value: { _tag: "Busy" } })
      const again = yield* lock.withLock(name, { wait: true }, Effect.succeed(42))
      assert.deepStrictEqual(again, { _tag: "Ran", value: 42 })
      const failed = yield* Effect.exit(lock.withLock(name, { wait: false }, Effect.fail("boom")))
      assert.isTrue(Exit.isFailure(failed))
      assert.deepStrictEqual(yield* lock.withLock(name, { wait: false }, Effect.succeed(1)), { _tag: "Ran", value: 1 })
    })
  )

  // ---- nonces -----------------------------------------------------------------
  it.effect("a nonce is claimed once until it expires, then may be claimed again", () =>
    Effect.gen(function* () {
      const nonces = yield* Nonces
      const key = `contract-${rng.uuid()}`
      const now = yield* Clock.currentTimeMillis
      const expires = new Date(now + 60_000)
      assert.isTrue(yield* nonces.claim(key, expires))
      assert.isFalse(yield* nonces.claim(key, expires))
      assert.isTrue(yield* nonces.claim(`${key}-other`, expires))
      yield* TestClock.adjust("30 seconds")
      assert.isFalse(yield* nonces.claim(key, new Date(now + 120_000)))
      yield* TestClock.adjust("31 seconds")
      assert.isTrue(yield* nonces.claim(key, new Date(now + 180_000)))
      assert.isFalse(yield* nonces.claim(key, new Date(now + 180_000)))
    })
  )

  it.effect("concurrent claims of one nonce: exactly one wins", () =>
    Effect.gen(function* () {
      const nonces = yield* Nonces
      const key = `contract-${rng.uuid()}`
      const expires = new Date((yield* Clock.currentTimeMillis) + 60_000)
      const won = yield* Effect.all(
        Array.from({ length: 8 }, () => nonces.claim(key, expires)),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(won.filter((w) => w).length, 1)
    })
  )
}
