/** Settings and the job lock. */
import { assert } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { JobLock, Settings } from "@productdir/domain"
import { rng } from "./inputs.ts"
import type { ContractIt } from "./suite.ts"

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
}
