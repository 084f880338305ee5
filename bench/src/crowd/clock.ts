/**
 * Synthetic time for the simulation: a Clock whose hands the simulation moves. Every store and use
 * case reads time from Effect's Clock (the SQL store passes it into its routines), so thirty days of
 * votes run in minutes, and a run is the same on every machine.
 */
import { type Clock, Effect } from "effect"

export interface SyntheticClock extends Clock.Clock {
  /** Moves the hands to `millis` (epoch); never backwards. */
  readonly set: (millis: number) => void
  readonly now: () => number
}

/** Time as the simulation sets it; sleeps (a change feed's polls) wait in real time, on `real`. */
export const syntheticClock = (start: number, real: Clock.Clock): SyntheticClock => {
  let now = start
  const nanos = () => BigInt(now) * 1_000_000n
  return {
    set: (millis) => {
      now = Math.max(now, Math.floor(millis))
    },
    now: () => now,
    currentTimeMillisUnsafe: () => now,
    currentTimeMillis: Effect.sync(() => now),
    currentTimeNanosUnsafe: nanos,
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanosUnsafe: nanos,
    monotonicTimeNanos: Effect.sync(nanos),
    sleep: (duration) => real.sleep(duration)
  }
}
