/**
 * RateLimits in this process (RateLimits.ts has the arithmetic): the buckets
 * of one process, for stores that live in one process (memory, embedded PGlite).
 * Each take is one synchronous step, so concurrent requests never overdraw.
 */
import { Clock, Effect, Layer } from "effect"
import { type Bucket, decide, RateLimits, tokensAt } from "@productdir/domain"

interface Held extends Bucket {
  /** When the bucket is full again: from then on it carries no information. */
  readonly fullAt: number
}

export const make = Effect.sync(() => {
  const buckets = new Map<string, Held>()
  let lastSweep = 0

  // Full buckets are the same as absent ones: drop them so memory follows active clients only.
  const sweep = (now: number) => {
    if (now - lastSweep < 60_000) return
    lastSweep = now
    for (const [key, bucket] of buckets) if (bucket.fullAt <= now) buckets.delete(key)
  }

  return RateLimits.of({
    take: (limits) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        sweep(now)
        const active = limits.filter((limit) => limit.max > 0)
        const levels = active.map((limit) => ({ limit, tokens: tokensAt(buckets.get(limit.key), limit, now) }))
        const decision = decide(levels)
        if (decision._tag === "Allowed") {
          for (const { limit, tokens } of levels) {
            const left = tokens - 1
            buckets.set(limit.key, { tokens: left, at: now, fullAt: now + ((limit.max - left) * limit.windowSeconds * 1000) / limit.max })
          }
        }
        return decision
      })
  })
})

export const layer = Layer.effect(RateLimits, make)
