/**
 * The time a store writes (updated_at, removed_at, a vote's and a report's times):
 * the Effect Clock, at the millisecond clients see and cursors carry, so every
 * store stamps time the same way and tests move it with TestClock.
 */
import { Clock, Effect } from "effect"

export const stamp: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
