/** `--every <duration>` and `--cron "<expr>"`: when the next pass starts. */
import { Cron, Duration, Option, Result } from "effect"

const COMPACT = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/
const UNITS = { ms: "millis", s: "seconds", m: "minutes", h: "hours", d: "days" } as const

/** "30s", "5m", "1h", "250ms", or Effect's own "5 minutes". */
export const parseEvery = (text: string): Result.Result<Duration.Duration, string> => {
  const compact = COMPACT.exec(text.trim())
  const input = compact ? `${compact[1]} ${UNITS[compact[2] as keyof typeof UNITS]}` : text.trim()
  const duration = Duration.fromInput(input as Duration.Input)
  return Option.isSome(duration) && Duration.toMillis(duration.value) > 0
    ? Result.succeed(duration.value)
    : Result.fail(`--every takes a duration such as 30s, 5m, 1h or "10 minutes"; got "${text}"`)
}

export const parseCron = (text: string): Result.Result<Cron.Cron, string> =>
  Result.mapError(Cron.parse(text), (error) => `--cron "${text}" is not a cron expression: ${error.message}`)

export type Plan =
  | { readonly _tag: "Once" }
  | { readonly _tag: "Every"; readonly duration: Duration.Duration }
  | { readonly _tag: "Cron"; readonly cron: Cron.Cron }
