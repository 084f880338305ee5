/**
 * RateLimits in PostgreSQL: the buckets of every API process on one database,
 * so N processes allow the limit once, not N times. One function call per take
 * (`productdir_take_tokens`, migrations.ts); the decision is the domain's.
 * Idle buckets are full, the same as absent: a sweep deletes them now and then.
 */
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { decide, type Limit, RateLimits } from "@productdir/domain"
import { storeError } from "./errors.ts"
import { stamp } from "./stamp.ts"

const SWEEP_EVERY = Duration.minutes(5)

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const sweep = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    yield* sql`DELETE FROM rate_buckets WHERE at + window_ms * interval '1 millisecond' < ${new Date(now)}`
  }).pipe(Effect.catchCause((cause) => Effect.logDebug("rate limit sweep failed; the next one retries", cause)))
  yield* Effect.forkScoped(Effect.repeat(Effect.andThen(Effect.sleep(SWEEP_EVERY), sweep), Schedule.forever))

  const take = Effect.fn("RateLimits.take")(function* (limits: ReadonlyArray<Limit>) {
    const active = limits.filter((limit) => limit.max > 0)
    if (active.length === 0) return decide([])
    const now = yield* stamp
    const rows = yield* sql<{ key: string; tokens: number }>`
      SELECT key, tokens FROM productdir_take_tokens(
        ${active.map((l) => l.key)}::text[],
        ${active.map((l) => l.max)}::float8[],
        ${active.map((l) => l.windowSeconds * 1000)}::float8[],
        ${now})`.pipe(storeError("rate limit"))
    const tokens = new Map(rows.map((r) => [r.key, Number(r.tokens)]))
    return decide(active.map((limit) => ({ limit, tokens: tokens.get(limit.key) ?? limit.max })))
  })

  return RateLimits.of({ take })
})

export const layer = Layer.effect(RateLimits, make)
