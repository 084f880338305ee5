/** How entry points end: exit codes for CLIs, and a clean 0 when a signal stops a server or a schedule. */
import { Cause, Console, Effect, Exit, type Runtime } from "effect"

const STORE_FAILURES = new Set(["StoreError", "SqlError", "MigrationError", "ConfigError"])

/**
 * The exit code of a CLI failure, after printing one line that says what to do.
 * `known` maps the tool's own error tags to codes (and whether they print their message).
 */
export const cliExitCode = (tool: string, known: Record<string, { readonly code: number; readonly print: boolean }>) =>
(error: unknown): Effect.Effect<number> => {
  const tag = (error as { _tag?: string })._tag ?? ""
  const message = (error as { message?: string }).message ?? tag
  const own = known[tag]
  if (own !== undefined) return own.print ? Console.error(`${tool}: ${message}`).pipe(Effect.as(own.code)) : Effect.succeed(own.code)
  if (STORE_FAILURES.has(tag)) {
    return Console.error(
      `${tool}: cannot use the store (${message}). Check DATABASE_URL, or unset it to use the embedded store in DATA_DIR.`
    ).pipe(Effect.as(2))
  }
  // Usage errors: effect/cli has already printed what was wrong.
  return Effect.succeed(2)
}

/**
 * A program that returns its exit code exits with it; one stopped by SIGTERM/SIGINT (interruption
 * only) exits 0, a clean stop; anything else that escaped exits `onDefect`.
 */
export const teardown = (onDefect: number): Runtime.Teardown => (exit, onExit) =>
  Exit.isSuccess(exit) && typeof exit.value === "number"
    ? onExit(exit.value)
    : Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)
    ? onExit(0)
    : Exit.isSuccess(exit)
    ? onExit(0)
    : onExit(onDefect)
