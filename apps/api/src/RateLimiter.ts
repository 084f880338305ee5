/**
 * The vote rate limit (DESIGN §5): token buckets per key, refilled
 * continuously, held in this process. A request passes only when every key
 * it names has a token; then it takes one from each.
 */
import { Clock, Context, Effect, Layer } from "effect"

export interface Limit {
  readonly key: string
  /** Per minute; 0 turns the limit off. */
  readonly perMinute: number
}

export type Decision =
  | { readonly _tag: "Allowed"; readonly limit: number; readonly remaining: number; readonly resetSeconds: number }
  | { readonly _tag: "Limited"; readonly limit: number; readonly retryAfterSeconds: number }

interface Bucket {
  tokens: number
  at: number
}

export class RateLimiter extends Context.Service<RateLimiter, {
  readonly take: (limits: ReadonlyArray<Limit>) => Effect.Effect<Decision>
}>()("@productdir/api/RateLimiter") {}

const MINUTE = 60_000

export const make = Effect.sync(() => {
  const buckets = new Map<string, Bucket>()
  let lastSweep = 0

  const level = (limit: Limit, now: number): Bucket => {
    const bucket = buckets.get(limit.key) ?? { tokens: limit.perMinute, at: now }
    const refilled = Math.min(limit.perMinute, bucket.tokens + ((now - bucket.at) * limit.perMinute) / MINUTE)
    return { tokens: refilled, at: now }
  }

  // Full buckets carry no information: drop them so memory follows active voters only.
  const sweep = (now: number) => {
    if (now - lastSweep < MINUTE) return
    lastSweep = now
    for (const [key, bucket] of buckets) if (now - bucket.at > MINUTE) buckets.delete(key)
  }

  return RateLimiter.of({
    take: (limits) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        sweep(now)
        const active = limits.filter((l) => l.perMinute > 0)
        if (active.length === 0) return { _tag: "Allowed", limit: 0, remaining: 0, resetSeconds: 0 } as const
        const levels = active.map((limit) => ({ limit, bucket: level(limit, now) }))
        const empty = levels.filter(({ bucket }) => bucket.tokens < 1)
        if (empty.length > 0) {
          const wait = Math.max(...empty.map(({ bucket, limit }) => ((1 - bucket.tokens) * MINUTE) / limit.perMinute))
          const tightest = Math.min(...empty.map(({ limit }) => limit.perMinute))
          return { _tag: "Limited", limit: tightest, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) } as const
        }
        for (const { bucket, limit } of levels) buckets.set(limit.key, { tokens: bucket.tokens - 1, at: now })
        const tightest = levels.reduce((a, b) => (b.bucket.tokens / b.limit.perMinute < a.bucket.tokens / a.limit.perMinute ? b : a))
        const remaining = Math.floor(tightest.bucket.tokens - 1)
        return {
          _tag: "Allowed",
          limit: tightest.limit.perMinute,
          remaining,
          resetSeconds: Math.ceil(((tightest.limit.perMinute - (tightest.bucket.tokens - 1)) * MINUTE) / tightest.limit.perMinute / 1000)
        } as const
      })
  })
})

export const layer = Layer.effect(RateLimiter, make)
