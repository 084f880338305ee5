/** How entry points end: a program that returns its exit code exits with it; a signal is a clean stop. */
import { Cause, Exit, type Runtime } from "effect"

/**
 * A program that returns its exit code exits with it; one stopped by SIGTERM/SIGINT (interruption
 * only) exits 0, a clean stop; anything else that escaped exits `onDefect`.
 */
export const teardown =
  (onDefect: number): Runtime.Teardown =>
  (exit, onExit) =>
    Exit.isSuccess(exit) && typeof exit.value === "number"
      ? onExit(exit.value)
      : Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)
        ? onExit(0)
        : Exit.isSuccess(exit)
          ? onExit(0)
          : onExit(onDefect)
