/**
 * The import writes batches side by side; one that repeats an id of an earlier batch still being
 * written must wait for it, so the later record wins (src/BatchOrder.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { makeBatchOrder } from "../src/BatchOrder.ts"

describe("batch order", () => {
  it.effect("a batch sharing an id with one in flight waits for it; others go side by side", () =>
    Effect.gen(function* () {
      const order = makeBatchOrder((ids: ReadonlyArray<string>) => ids)
      const events: Array<string> = []
      const first = yield* order(["a", "b"])
      const disjoint = yield* order(["c"])
      const sharing = yield* order(["d", "b"])
      const release = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const writing = (name: string, gate?: Deferred.Deferred<void>) =>
        Effect.gen(function* () {
          events.push(`${name} starts`)
          if (gate !== undefined) {
            yield* Deferred.succeed(started, undefined)
            yield* Deferred.await(gate)
          }
          events.push(`${name} ends`)
        })
      const one = yield* Effect.forkChild(first.write(writing("first", release)))
      yield* Deferred.await(started)
      const three = yield* Effect.forkChild(sharing.write(writing("sharing")))
      yield* disjoint.write(writing("disjoint"))
      yield* Effect.yieldNow
      assert.deepStrictEqual(events, ["first starts", "disjoint starts", "disjoint ends"])
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(one)
      yield* Fiber.join(three)
      assert.deepStrictEqual(events, ["first starts", "disjoint starts", "disjoint ends", "first ends", "sharing starts", "sharing ends"])
    })
  )

  it.effect("a failed batch still lets the next one go (the run stops on the failure itself)", () =>
    Effect.gen(function* () {
      const order = makeBatchOrder((ids: ReadonlyArray<string>) => ids)
      const first = yield* order(["a"])
      const second = yield* order(["a"])
      const failed = yield* Effect.flip(first.write(Effect.fail("connection lost")))
      assert.strictEqual(failed, "connection lost")
      assert.strictEqual(yield* second.write(Effect.succeed("written")), "written")
    })
  )
})
