/**
 * The embedded database's disk, watched. PGlite stops for good when its disk fills: the next WAL segment (16 MiB,
 * written whole when the last one is full) fails to be written, and every later statement waits forever (reads,
 * votes and /readyz hang; freeing space does not bring it back, SIGTERM does not end it). So it is never let
 * get there: while the data directory's file system has less free than a reserve (a WAL segment and a margin),
 * the session is read-only: every write is refused at once (a 503 with Retry-After at the API, one line at a CLI),
 * reads go on, and writes resume as soon as the space is back.
 */
import { Duration, Effect, type LogLevel, Schedule } from "effect"
import { statfsSync } from "node:fs"

/** Free bytes the embedded database keeps in reserve: a WAL segment (16 MiB) and 2 MiB for the files that grow. */
export const DEFAULT_RESERVE = 18 * 1024 * 1024

/** Above the reserve by this much before writes resume: no flapping at the edge. */
const HYSTERESIS = 1024 * 1024

/** How often the free space is read (a system call, microseconds). */
const EVERY = Duration.millis(500)

export interface DiskState {
  /** Bytes free for an unprivileged writer. */
  readonly free: number
  readonly reserve: number
  /** Writes are refused. */
  readonly low: boolean
}

/** Free bytes on the file system of `dir`; undefined when it cannot be read (the directory is gone). */
export const freeBytes = (dir: string): number | undefined => {
  try {
    const stats = statfsSync(dir)
    return Number(stats.bavail) * Number(stats.bsize)
  } catch {
    return undefined
  }
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/**
 * Watches the disk of `dir` for as long as the scope is open, calling `change` (and waiting for it) each time
 * writes must stop or may resume, once `arm` has run: a process's start writes what it must (its migrations, its
 * settings) whatever the disk holds, and is refused nothing it could not start without. Its first reading is
 * taken before it returns.
 */
export const watch = (
  dir: string,
  reserve: number,
  change: (state: DiskState) => Promise<void>,
  /** A server says so in its log; a command says it in its one line when a write is refused. */
  logLevel: LogLevel.Severity = "Warn"
) =>
  Effect.gen(function* () {
    let low = false
    let armed = false
    const check = Effect.gen(function* () {
      const free = freeBytes(dir)
      if (free === undefined || !armed) return
      const next = low ? free < reserve + HYSTERESIS : free < reserve
      if (next === low) return
      low = next
      yield* low
        ? Effect.logWithLevel(logLevel)(
            `the embedded database's disk has ${mib(free)} free, under the ${mib(reserve)} it keeps in reserve: writes are refused (503) until space is freed; reads go on`
          )
        : Effect.logWithLevel(logLevel === "Warn" ? "Info" : logLevel)(
            `the embedded database's disk has ${mib(free)} free again: writes resume`
          )
      yield* Effect.promise(() => change({ free, reserve, low }))
    })
    yield* Effect.forkScoped(Effect.repeat(check, Schedule.spaced(EVERY)))
    return {
      state: (): DiskState => ({ free: freeBytes(dir) ?? 0, reserve, low }),
      /** Writes are refused from now on whenever the disk is low. */
      arm: Effect.suspend(() => {
        armed = true
        return check
      })
    }
  })
