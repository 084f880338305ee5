/**
 * The command line: one pass by default, or `--every` / `--cron` until
 * SIGTERM/SIGINT. Each pass opens the store itself, so `--help` and usage
 * errors never touch a database, and a schedule holds none between passes.
 */
import { Cause, Clock, Console, Effect, Layer, Option, Predicate, Result, Schedule } from "effect"
import { Command, Flag } from "effect/cli"
import { JobLock } from "@productdir/domain"
import { burstGuardConfig, layerForCatalog, stoppedUnfinished, storeFailure, unwritableFile } from "@productdir/runtime"
import { DEFAULT_RELEASE, IntegrityPass, type PassReport, reconcile } from "@productdir/usecases"
import { ROLE } from "./role.ts"
import { writeFileSync } from "node:fs"
import { UsageError, WouldChange } from "./errors.ts"
import { recordRun, writeMetricsFile } from "./metrics.ts"
import { groupLines, integrityLine, makeProgress, reportJson, summaryLine } from "./output.ts"
import { parseCron, parseEvery, type Plan } from "./schedule.ts"

export const LOCK_NAME = "reconcile"

const planOf = (every: Option.Option<string>, cron: Option.Option<string>, now: Date): Effect.Effect<Plan, UsageError> => {
  if (Option.isSome(every) && Option.isSome(cron)) {
    return Effect.fail(new UsageError({ message: "--every and --cron do not go together: pick one schedule" }))
  }
  if (Option.isSome(every)) {
    const duration = parseEvery(every.value)
    return Result.isSuccess(duration)
      ? Effect.succeed({ _tag: "Every", duration: duration.success })
      : Effect.fail(new UsageError({ message: duration.failure }))
  }
  if (Option.isSome(cron)) {
    const parsed = parseCron(cron.value, now)
    return Result.isSuccess(parsed)
      ? Effect.succeed({ _tag: "Cron", cron: parsed.success })
      : Effect.fail(new UsageError({ message: parsed.failure }))
  }
  return Effect.succeed({ _tag: "Once" })
}

/** A file the run writes, checked before anything runs (exit 2, nothing done). */
const writableOrUsage = (flag: string, path: Option.Option<string>, options: { readonly replaced?: boolean } = {}) =>
  Effect.suspend(() => {
    const why = Option.isSome(path) ? unwritableFile(path.value, options) : undefined
    return why === undefined
      ? Effect.void
      : Effect.fail(new UsageError({ message: `${flag} ${Option.getOrElse(path, () => "")} cannot be written: ${why}; nothing was run` }))
  })

const isMisconfigured = (error: unknown): boolean =>
  Predicate.isTagged(error, "ConfigError") ||
  (Predicate.isTagged(error, "StoreError") && (error as { readonly operation?: unknown }).operation === "find the catalog")

/**
 * A scheduled pass that fails (the database restarting, the API that owns DATA_DIR restarting, a file that
 * could not be written) is said in one line and the schedule goes on: the next pass is the retry. Only a
 * stop (SIGTERM, SIGINT) ends the schedule.
 */
const survivingFailure = <A, E, R>(pass: Effect.Effect<A, E, R>) =>
  pass.pipe(
    Effect.catchCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
      const error = Cause.squash(cause)
      // What no retry can mend ends the schedule (exit 2): a setting that cannot be used, a catalog that is not there.
      if (isMisconfigured(error)) return Effect.failCause(cause)
      const said = storeFailure(ROLE, 2)(error) ?? Console.error(`${ROLE.tool}: ${error instanceof Error ? error.message : String(error)}`)
      return Effect.andThen(said, Console.error(`${ROLE.tool}: this pass failed; the next one runs on schedule`))
    })
  )

export const reconcileCommand = Command.make(
  "productdir-reconcile",
  {
    check: Flag.Boolean("check").pipe(
      Flag.withDefault(false),
      Flag.withDescription(
        "Report what the integrity pass and the recount would change, and change nothing; exit 1 if they would change anything"
      )
    ),
    every: Flag.String("every").pipe(Flag.optional, Flag.withDescription("Run a pass every DURATION (30s, 5m, 1h) until SIGTERM/SIGINT")),
    cron: Flag.String("cron").pipe(
      Flag.optional,
      Flag.withDescription('Run a pass on a cron schedule ("*/5 * * * *") until SIGTERM/SIGINT')
    ),
    wait: Flag.Boolean("wait").pipe(
      Flag.withDefault(false),
      Flag.withDescription("When another runner holds the lock, wait for it instead of skipping")
    ),
    batchSize: Flag.Int("batch-size").pipe(
      Flag.filter(
        (n: number) => n >= 1 && n <= 50_000,
        (n) => `--batch-size ${n} is out of range: 1 to 50000`
      ),
      Flag.withDefault(1000),
      Flag.withDescription("Products per batch; each repair batch is one transaction")
    ),
    report: Flag.String("report").pipe(
      Flag.optional,
      Flag.withDescription("Write the JSON summary (with every drifted product) to this file")
    ),
    metricsFile: Flag.String("metrics-file").pipe(
      Flag.optional,
      Flag.withDescription(
        "After every pass, write its figures in the Prometheus text format to this file (for node_exporter's textfile collector: a path ending in .prom)"
      )
    )
  },
  (options) =>
    Effect.gen(function* () {
      const plan = yield* planOf(options.every, options.cron, new Date(yield* Clock.currentTimeMillis))
      yield* writableOrUsage("--report", options.report)
      // Written beside itself and renamed over: its folder must be writable (metrics.ts).
      yield* writableOrUsage("--metrics-file", options.metricsFile, { replaced: true })

      // The integrity pass judges held votes by the same guard the API holds them with; off, there is nothing to judge.
      const guard = yield* burstGuardConfig

      const work = Effect.gen(function* () {
        const startedAt = new Date()
        let integrity: { readonly report: PassReport; readonly ms: number } | undefined
        if (guard !== undefined) {
          const report = yield* IntegrityPass.runPass({
            apply: !options.check,
            settings: { ...IntegrityPass.DEFAULT_PASS, release: { ...DEFAULT_RELEASE, guard } }
          })
          integrity = { report, ms: Date.now() - startedAt.getTime() }
          yield* Console.log(integrityLine(report, integrity.ms))
          for (const line of groupLines(report)) yield* Console.log(line)
        }
        const progress = makeProgress()
        const summary = yield* reconcile({ repair: !options.check, batchSize: options.batchSize, onBatch: progress.update }).pipe(
          Effect.ensuring(Effect.sync(progress.stop))
        )
        const ms = Date.now() - startedAt.getTime()
        yield* Console.log(summaryLine(summary, options.check, ms))
        if (Option.isSome(options.report)) {
          const report = options.report.value
          const text = `${JSON.stringify(reportJson(summary, integrity, options.check, startedAt, ms), null, 2)}\n`
          yield* Effect.try({
            try: () => writeFileSync(report, text),
            catch: (error) =>
              new UsageError({
                message: `--report ${report} could not be written: ${error instanceof Error ? error.message : String(error)}`
              })
          })
        }
        yield* recordRun({ summary, ms, integrity })
        if (Option.isSome(options.metricsFile)) yield* writeMetricsFile(options.metricsFile.value)
        return { summary, integrity: integrity?.report }
      })

      // Each pass opens the store and lets it go: between scheduled passes the embedded DATA_DIR is free for the
      // API to start on, and a pass after an outage connects afresh. The ledger is read in one statement, whose
      // plan wants parallel workers (StoreLayer.ts).
      const pass = Effect.gen(function* () {
        // A check changes nothing, so it needs no turn: it runs beside a repair, and never reports "nothing to
        // change" for a pass it skipped.
        if (options.check) return yield* work
        const lock = yield* JobLock
        const first = yield* lock.withLock(LOCK_NAME, { wait: false }, work)
        if (first._tag === "Ran") return first.value
        if (!options.wait) {
          yield* Console.log("another productdir-reconcile is running: skipped this pass (--wait waits for it)")
          return undefined
        }
        yield* Console.log("another productdir-reconcile is running: waiting for it to finish")
        const waited = yield* lock.withLock(LOCK_NAME, { wait: true }, work)
        return waited._tag === "Ran" ? waited.value : undefined
      }).pipe(Effect.provide(Layer.fresh(layerForCatalog(ROLE, { readOnly: options.check }, { parallelQueries: true }))))

      if (plan._tag === "Once") {
        // Stopped before it finished, a one-off run says so, and exits STOPPED_EXIT: a cron or a pipeline must not
        // read a pass cut short as done. What it repaired stays repaired (each batch is one transaction).
        const outcome = yield* pass.pipe(
          Effect.onInterrupt(() =>
            Effect.andThen(
              Effect.sync(stoppedUnfinished),
              Console.error(
                `${ROLE.tool}: stopped before the pass finished; the batches it repaired stay repaired. Run it again to finish.`
              )
            )
          )
        )
        if (options.check && outcome !== undefined) {
          const drifted = outcome.summary.drifted
          const discounted = outcome.integrity?.discounted ?? 0
          const released = outcome.integrity?.released ?? 0
          if (drifted + discounted + released > 0) return yield* new WouldChange({ drifted, discounted, released })
        }
        return
      }
      yield* Console.log(
        `running ${plan._tag === "Every" ? `every ${options.every.pipe(Option.getOrElse(() => ""))}` : `on cron "${options.cron.pipe(Option.getOrElse(() => ""))}"`} until SIGTERM or SIGINT`
      )
      // The next pass is scheduled from the end of the last one: passes never overlap.
      if (plan._tag === "Every") yield* Effect.repeat(survivingFailure(pass), Schedule.spaced(plan.duration))
      else yield* Effect.repeat(survivingFailure(pass), Schedule.cron(plan.cron))
    })
).pipe(
  Command.withDescription(
    "Run the integrity pass (voter groups that vote in lockstep, and addresses that exist for one product, have their votes discounted; held votes that pass are counted; skipped with CROWD_DEFENSE=off), then recount every product's trust counters from its seed counts and the counted votes, report drift, and repair it. Exit 0: done (or nothing to change with --check); 1: --check found something to change; 2: usage or connection error; 130: a one-off run stopped by SIGTERM/SIGINT before its pass finished."
  )
)
