/** Time for the store contracts. */
import { Clock, Effect } from "effect"

/**
 * Runs `effect` with the time the stores stamp fixed at `millis`. Sleeps still pass as the test's
 * clock says: moving a TestClock days ahead would wake a store's polling loop once per poll between.
 */
export const at =
  (millis: number) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Clock.clockWith((base) =>
      Effect.provideService(effect, Clock.Clock, {
        currentTimeMillisUnsafe: () => millis,
        currentTimeMillis: Effect.succeed(millis),
        currentTimeNanosUnsafe: () => BigInt(millis) * 1_000_000n,
        currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n),
        monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
        monotonicTimeNanos: base.monotonicTimeNanos,
        sleep: (duration) => base.sleep(duration)
      })
    )
