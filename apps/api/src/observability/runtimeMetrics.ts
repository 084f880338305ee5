/**
 * The runtime's own latency, for GET /metrics: how late the event loop ran (every request waits behind
 * it) and how long V8's collections paused it, under the names Prometheus' Node client uses, so an
 * operator's dashboards for Node services read them as they are. A cached read's tail can be V8's
 * mark-compacts, which without these only a profiler shows (docs/benchmarks.md, "the tail that was V8's
 * pretenuring"); these series show such a tail's cause where the request histogram only shows that it is there.
 *
 * - `nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds`: the loop's delay as
 *   `monitorEventLoopDelay` samples it (every 10 ms), since the last scrape, which resets it, as
 *   prom-client does: one scraper a process. Node's monitor marks the time at its first tick after a
 *   reset and measures from the second, so a stall in the first 10 ms after a scrape is not seen.
 * - `nodejs_gc_duration_seconds{kind}`: a histogram of the collections' pauses since the process
 *   started, by kind (minor, major, incremental, weakcb), in prom-client's buckets.
 */
import { Context, Effect, Layer } from "effect"
import { constants, type ELDHistogram, monitorEventLoopDelay, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks"

/** prom-client's buckets for GC pauses, in seconds. */
const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5] as const

const GC_KINDS: ReadonlyArray<readonly [number, string]> = [
  [constants.NODE_PERFORMANCE_GC_MINOR, "minor"],
  [constants.NODE_PERFORMANCE_GC_MAJOR, "major"],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, "incremental"],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, "weakcb"]
]

/** The sampling interval of the loop's delay, in ms: a late run shorter than it is not seen. */
const RESOLUTION_MS = 10

interface GcSeries {
  readonly buckets: Array<number>
  count: number
  sum: number
}

const gauge = (name: string, help: string, value: number) => `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name} ${value}\n`

/** Nanoseconds as seconds; a histogram with no sample yet reads as 0, not as its sentinel extremes. */
const seconds = (loop: ELDHistogram, read: (h: ELDHistogram) => number) => (loop.count === 0 ? 0 : read(loop) / 1e9)

const loopText = (loop: ELDHistogram): string => {
  const lag = (suffix: string, what: string, read: (h: ELDHistogram) => number) =>
    gauge(
      `nodejs_eventloop_lag_${suffix}_seconds`,
      `The event loop's ${what} delay since the last scrape, in seconds.`,
      seconds(loop, read)
    )
  return [
    lag("min", "least", (h) => h.min),
    lag("max", "greatest", (h) => h.max),
    lag("mean", "mean", (h) => h.mean),
    lag("stddev", "standard deviation of the", (h) => h.stddev),
    lag("p50", "median", (h) => h.percentile(50)),
    lag("p90", "90th percentile", (h) => h.percentile(90)),
    lag("p99", "99th percentile", (h) => h.percentile(99))
  ].join("")
}

const gcText = (series: ReadonlyMap<string, GcSeries>): string => {
  const name = "nodejs_gc_duration_seconds"
  const lines = [`# HELP ${name} Pauses of V8's garbage collections by kind, in seconds.`, `# TYPE ${name} histogram`]
  for (const [kind, s] of series) {
    for (const [k, le] of GC_BUCKETS.entries()) lines.push(`${name}_bucket{le="${le}",kind="${kind}"} ${s.buckets[k]}`)
    lines.push(
      `${name}_bucket{le="+Inf",kind="${kind}"} ${s.count}`,
      `${name}_sum{kind="${kind}"} ${s.sum}`,
      `${name}_count{kind="${kind}"} ${s.count}`
    )
  }
  return `${lines.join("\n")}\n`
}

export class RuntimeMetrics extends Context.Service<
  RuntimeMetrics,
  {
    /** The series above in the Prometheus text format; the loop's figures start again from here. */
    readonly scrape: () => string
  }
>()("@productdir/api/RuntimeMetrics") {}

/** The loop's monitor and the GC observer, for the layer's life. */
export const layer = Layer.effect(
  RuntimeMetrics,
  Effect.gen(function* () {
    const loop = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
        histogram.enable()
        return histogram
      }),
      (histogram) => Effect.sync(() => histogram.disable())
    )
    const gc = new Map<string, GcSeries>(GC_KINDS.map(([, kind]) => [kind, { buckets: GC_BUCKETS.map(() => 0), count: 0, sum: 0 }]))
    const kindOf = new Map(GC_KINDS)
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) {
            // A GC entry's detail names its kind (Node 16 on); the types leave it out of PerformanceEntry.
            const { detail } = entry as PerformanceEntry & { readonly detail?: { readonly kind?: number } }
            const series = gc.get(kindOf.get(detail?.kind ?? -1) ?? "")
            if (series === undefined) continue
            const pause = entry.duration / 1000
            series.count++
            series.sum += pause
            GC_BUCKETS.forEach((le, k) => {
              if (pause <= le) series.buckets[k]!++
            })
          }
        })
        observer.observe({ entryTypes: ["gc"] })
        return observer
      }),
      (observer) => Effect.sync(() => observer.disconnect())
    )
    return RuntimeMetrics.of({
      scrape: () => {
        const text = loopText(loop) + gcText(gc)
        loop.reset()
        return text
      }
    })
  })
)
