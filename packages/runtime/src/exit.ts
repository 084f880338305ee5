/** How entry points end: a program that returns its exit code exits with it; a signal is a clean stop. */
import { Cause, Exit, type Runtime } from "effect"

/** How long the last output may take to reach a reader that is slow to read it. */
const FLUSH_WAIT_MS = 5_000

/**
 * Calls `done` once what was written to stdout and stderr has been handed to the OS. A pipe whose
 * reader is busy holds Node's writes in a queue, and exiting drops the queue: the last lines of a
 * process under load (its shutdown lines) are lost that way.
 */
const afterOutputFlushed = (done: () => void): void => {
  let pending = 2
  let finished = false
  const finish = () => {
    if (finished) return
    finished = true
    clearTimeout(timer)
    done()
  }
  const timer = setTimeout(finish, FLUSH_WAIT_MS)
  const one = () => {
    if (--pending === 0) finish()
  }
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.writableLength === 0 || stream.destroyed) one()
    else stream.write("", one)
  }
}

/** The exit code of a one-off job that SIGTERM/SIGINT stopped before it finished (128 + SIGINT's 2, as shells say). */
export const STOPPED_EXIT = 130

/** Says that the job running now was stopped before it finished: it exits STOPPED_EXIT, not 0, when a signal ends it. */
export const stoppedUnfinished = (): void => {
  process.exitCode = STOPPED_EXIT
}

/**
 * A program that returns its exit code exits with it; one stopped by SIGTERM/SIGINT (interruption
 * only) exits 0, a clean stop, unless it was stopped in the middle of a one-off job (stoppedUnfinished:
 * STOPPED_EXIT); anything else that escaped exits `onDefect`. Either way, after the output written so
 * far has been flushed.
 */
export const teardown =
  (onDefect: number): Runtime.Teardown =>
  (exit, onExit) => {
    const code =
      Exit.isSuccess(exit) && typeof exit.value === "number"
        ? exit.value
        : Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)
          ? process.exitCode === STOPPED_EXIT
            ? STOPPED_EXIT
            : 0
          : Exit.isSuccess(exit)
            ? 0
            : onDefect
    afterOutputFlushed(() => onExit(code))
  }
