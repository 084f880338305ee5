/**
 * The runs in metrics (`--metrics-file`): after every pass the file is rewritten, whole, in the
 * Prometheus text format, for node_exporter's textfile collector (or anything that reads it). It
 * holds the last run's figures (when it ended, how long it and the integrity pass took, products
 * checked, drifted and repaired, votes discounted and held votes counted) and totals since the
 * process started (runs, products repaired, votes discounted): a cron-started run writes its own,
 * an `--every` runner keeps adding. Written beside itself and renamed over, so a scrape never
 * reads half a file. With OTEL_EXPORTER_OTLP_ENDPOINT each run is also a trace (packages/runtime).
 */
import { Clock, Effect, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"
import type { PassReport, ReconcileSummary } from "@productdir/usecases"
import { renameSync, writeFileSync } from "node:fs"
import { UsageError } from "./errors.ts"

const gauge = (name: string, description: string) => Metric.gauge(name, { description })
const counter = (name: string, description: string) => Metric.counter(name, { description, incremental: true })

const LAST_RUN = gauge("productdir_reconcile_last_run_timestamp_seconds", "When the last run ended (unix seconds).")
const DURATION = gauge("productdir_reconcile_duration_seconds", "The last run's duration: the integrity pass and the recount.")
const CHECKED = gauge("productdir_reconcile_products_checked", "Products the last run recounted.")
const DRIFTED = gauge("productdir_reconcile_products_drifted", "Products whose counters the last run found drifted.")
const REPAIRED = gauge("productdir_reconcile_products_repaired", "Products the last run repaired (0 under --check).")
const PASS_DURATION = gauge(
  "productdir_integrity_pass_duration_seconds",
  "The last integrity pass's duration (absent with CROWD_DEFENSE=off)."
)
const DISCOUNTED = gauge("productdir_integrity_votes_discounted", "Votes the last integrity pass discounted (or would, under --check).")
const RELEASED = gauge("productdir_integrity_held_votes_counted", "Held votes the last integrity pass counted.")
const GROUPS = gauge("productdir_integrity_voter_groups", "Voter groups the last integrity pass found.")
const RUNS = counter("productdir_reconcile_runs_total", "Runs since this process started.")
const REPAIRED_TOTAL = counter("productdir_reconcile_products_repaired_total", "Products repaired since this process started.")
const DISCOUNTED_TOTAL = counter("productdir_integrity_votes_discounted_total", "Votes discounted since this process started.")

export interface RunFigures {
  readonly summary: ReconcileSummary
  readonly ms: number
  readonly integrity: { readonly report: PassReport; readonly ms: number } | undefined
}

/** One run into the metrics. */
export const recordRun = (run: RunFigures) =>
  Effect.gen(function* () {
    yield* Metric.update(LAST_RUN, (yield* Clock.currentTimeMillis) / 1000)
    yield* Metric.update(DURATION, run.ms / 1000)
    yield* Metric.update(CHECKED, run.summary.checked)
    yield* Metric.update(DRIFTED, run.summary.drifted)
    yield* Metric.update(REPAIRED, run.summary.repaired)
    yield* Metric.update(RUNS, 1)
    yield* Metric.update(REPAIRED_TOTAL, run.summary.repaired)
    if (run.integrity !== undefined) {
      const { report, ms } = run.integrity
      yield* Metric.update(PASS_DURATION, ms / 1000)
      yield* Metric.update(DISCOUNTED, report.discounted)
      yield* Metric.update(RELEASED, report.released)
      yield* Metric.update(GROUPS, report.groups.length)
      if (report.applied) yield* Metric.update(DISCOUNTED_TOTAL, report.discounted)
    }
  })

/** The metrics, whole, into `path` (written beside it, then renamed over it). */
export const writeMetricsFile = (path: string) =>
  Effect.flatMap(PrometheusMetrics.format(), (text) =>
    Effect.try({
      try: () => {
        const partial = `${path}.${process.pid}.tmp`
        writeFileSync(partial, text)
        renameSync(partial, path)
      },
      // A folder that stopped being writable since the start: said in one line (a schedule goes on), not a stack trace.
      catch: (error) =>
        new UsageError({
          message: `--metrics-file ${path} could not be written: ${error instanceof Error ? error.message : String(error)}`
        })
    })
  )
