/** `--every <duration>` and `--cron "<expr>"`: when the next pass starts. */
import { Cron, Duration, Option, Result } from "effect"

const COMPACT = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/
const UNITS = { ms: "millis", s: "seconds", m: "minutes", h: "hours", d: "days" } as const

/**
 * The shortest interval between passes: a pass reads the whole ledger, and "1ms" is more likely a typo for
 * "1m" than a wish to run a thousand passes a second against the database.
 */
export const MIN_EVERY = Duration.seconds(1)

/** "30s", "5m", "1h", or Effect's own "5 minutes"; at least a second. */
export const parseEvery = (text: string): Result.Result<Duration.Duration, string> => {
  const compact = COMPACT.exec(text.trim())
  const input = compact ? `${compact[1]} ${UNITS[compact[2] as keyof typeof UNITS]}` : text.trim()
  const duration = Duration.fromInput(input as Duration.Input)
  if (Option.isNone(duration) || Duration.toMillis(duration.value) <= 0) {
    return Result.fail(`--every takes a duration such as 30s, 5m, 1h or "10 minutes"; got "${text}"`)
  }
  return Duration.isLessThan(duration.value, MIN_EVERY)
    ? Result.fail(`--every ${text} is shorter than a second between passes: did you mean ${text.trim().replace(/ms$/u, "m")}?`)
    : Result.succeed(duration.value)
}

/** A cron expression with a next time: "0 0 30 2 *" (the 30th of February) parses, and never comes. */
export const parseCron = (text: string, now: Date): Result.Result<Cron.Cron, string> =>
  Result.flatMap(
    Result.mapError(Cron.parse(text), (error) => `--cron "${text}" is not a cron expression: ${error.message}`),
    (cron) => {
      try {
        Cron.next(cron, now)
        return Result.succeed(cron)
      } catch {
        return Result.fail(`--cron "${text}" names no date that ever comes, so no pass would run`)
      }
    }
  )

export type Plan =
  | { readonly _tag: "Once" }
  | { readonly _tag: "Every"; readonly duration: Duration.Duration }
  | { readonly _tag: "Cron"; readonly cron: Cron.Cron }
