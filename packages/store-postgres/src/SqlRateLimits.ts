/**
 * RateLimits in PostgreSQL: the buckets of every API process on one database,
 * so N processes allow the limit once, not N times. One function call per take
 * (`productdir_take_tokens`, routines/sql/tokenBuckets.sql); the decision is the domain's.
 * Idle buckets are full, the same as absent: a sweep deletes them now and then.
 */
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { type Decision, decide, type Limit, RateLimits } from "@productdir/domain"
import { storeError } from "./errors.ts"
import { stamp } from "./writeTime.ts"

const SWEEP_EVERY = Duration.minutes(5)

/** The limits that are on (a limit of 0 is off). */
export const activeLimits = (limits: ReadonlyArray<Limit>): ReadonlyArray<Limit> => limits.filter((limit) => limit.max > 0)

/** The buckets of `active` as productdir_take_tokens' three array arguments. */
export const bucketArguments = (active: ReadonlyArray<Limit>) =>
  [active.map((l) => l.key), active.map((l) => l.max), active.map((l) => l.windowSeconds * 1000)] as const

/** The domain's decision from the tokens each bucket held before the take (a bucket not seen was full). */
export const decisionOf = (active: ReadonlyArray<Limit>, keys: ReadonlyArray<string>, tokens: ReadonlyArray<number>): Decision => {
  const held = new Map(keys.map((key, i) => [key, Number(tokens[i])]))
  return decide(active.map((limit) => ({ limit, tokens: held.get(limit.key) ?? limit.max })))
}

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const sweep = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    yield* sql`DELETE FROM rate_buckets WHERE at + window_ms * interval '1 millisecond' < ${new Date(now)}`
  }).pipe(Effect.catchCause((cause) => Effect.logDebug("rate limit sweep failed; the next one retries", cause)))
  yield* Effect.forkScoped(Effect.repeat(Effect.andThen(Effect.sleep(SWEEP_EVERY), sweep), Schedule.forever))

  const take = Effect.fn("RateLimits.take")(function* (limits: ReadonlyArray<Limit>) {
    const active = activeLimits(limits)
    if (active.length === 0) return decide([])
    const now = yield* stamp
    const [keys, max, windowMs] = bucketArguments(active)
    const rows = yield* sql<{ key: string; tokens: number }>`
      SELECT key, tokens FROM productdir_take_tokens(${keys}::text[], ${max}::float8[], ${windowMs}::float8[], ${now})`.pipe(
      storeError("rate limit")
    )
    return decisionOf(
      active,
      rows.map((r) => r.key),
      rows.map((r) => r.tokens)
    )
  })

  return RateLimits.of({ take })
})

export const layer = Layer.effect(RateLimits, make)
