/**
 * Rate limits (docs/api.md, "Rate limits"): token buckets, one per key, each
 * holding up to `max` tokens and refilled evenly over its window. A request
 * passes only when every bucket it names holds a token; then it takes one from
 * each. The arithmetic is here, once; a store keeps the buckets (PostgreSQL for
 * every process on one database, memory for one process) and applies it.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../support/errors.ts"

export interface Limit {
  readonly key: string
  /** Tokens a full bucket holds; 0 turns the limit off. */
  readonly max: number
  /** How long an empty bucket takes to fill again. */
  readonly windowSeconds: number
}

export type Decision =
  | {
      readonly _tag: "Allowed"
      /** The tightest limit's size (0 when no limit is on). */
      readonly limit: number
      readonly windowSeconds: number
      readonly remaining: number
      /** Seconds until the tightest bucket is full again. */
      readonly resetSeconds: number
    }
  | {
      readonly _tag: "Limited"
      readonly limit: number
      readonly windowSeconds: number
      /** Seconds until the bucket that had no token holds one again (Retry-After). */
      readonly retryAfterSeconds: number
      /** Seconds until that bucket is full again (RateLimit-Reset, as an allowed request's is). */
      readonly resetSeconds: number
      /** The bucket that had no token (the one that frees up last): what was limited. */
      readonly key: string
    }

export interface Bucket {
  readonly tokens: number
  /** Epoch milliseconds of the last refill. */
  readonly at: number
}

/** The tokens in a bucket at `now`. A bucket never seen, or idle for a whole window, is full. */
export const tokensAt = (bucket: Bucket | undefined, limit: Limit, now: number): number =>
  bucket === undefined
    ? limit.max
    : Math.min(limit.max, bucket.tokens + (Math.max(0, now - bucket.at) * limit.max) / (limit.windowSeconds * 1000))

/** The decision for buckets holding `tokens` (before anything is taken). */
export const decide = (levels: ReadonlyArray<{ readonly limit: Limit; readonly tokens: number }>): Decision => {
  const active = levels.filter(({ limit }) => limit.max > 0)
  const first = active[0]
  if (first === undefined) return { _tag: "Allowed", limit: 0, windowSeconds: 0, remaining: 0, resetSeconds: 0 }
  const refillMs = (limit: Limit) => (limit.windowSeconds * 1000) / limit.max
  const empty = active.filter(({ tokens }) => tokens < 1)
  if (empty.length > 0) {
    const waits = empty.map(({ limit, tokens }) => ({ limit, tokens, wait: (1 - tokens) * refillMs(limit) }))
    const longest = waits.reduce((a, b) => (b.wait > a.wait ? b : a))
    return {
      _tag: "Limited",
      limit: longest.limit.max,
      windowSeconds: longest.limit.windowSeconds,
      retryAfterSeconds: Math.max(1, Math.ceil(longest.wait / 1000)),
      resetSeconds: Math.ceil(((longest.limit.max - longest.tokens) * refillMs(longest.limit)) / 1000),
      key: longest.limit.key
    }
  }
  // The tightest bucket is the one left fullest in proportion least.
  const tightest = active.reduce((a, b) => ((b.tokens - 1) / b.limit.max < (a.tokens - 1) / a.limit.max ? b : a), first)
  const left = tightest.tokens - 1
  return {
    _tag: "Allowed",
    limit: tightest.limit.max,
    windowSeconds: tightest.limit.windowSeconds,
    remaining: Math.floor(left),
    resetSeconds: Math.ceil(((tightest.limit.max - left) * refillMs(tightest.limit)) / 1000)
  }
}

/** "60 per minute", "5 per day": a limit as people say it. */
export const describeLimit = (limit: number, windowSeconds: number): string =>
  windowSeconds === 60
    ? `${limit} per minute`
    : windowSeconds === 3600
      ? `${limit} per hour`
      : windowSeconds === 86_400
        ? `${limit} per day`
        : `${limit} per ${windowSeconds} s`

export class RateLimits extends Context.Service<
  RateLimits,
  {
    /** Takes one token from every bucket of `limits` if each holds one, atomically; the decision either way. */
    readonly take: (limits: ReadonlyArray<Limit>) => Effect.Effect<Decision, StoreError>
  }
>()("@productdir/domain/RateLimits") {}
