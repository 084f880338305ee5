/**
 * The load generator: Debian's wrk, in its own process (never inside a server's
 * or this driver's event loop, which would make the generator the bottleneck).
 * Runs one measurement and reads its figures from wrk's report.
 */
import { execFile, execFileSync } from "node:child_process"
import { resolve } from "node:path"
import { ROOT } from "./lib.ts"

export interface Figures {
  /** Requests completed. */
  readonly requests: number
  readonly rps: number
  readonly p50: number
  readonly p99: number
  /** Non-2xx/3xx responses and socket errors. */
  readonly errors: number
  /** With BENCH_QUANTILES (read.lua): the latencies at 1,000 evenly spaced quantiles, in ms. */
  readonly quantiles?: ReadonlyArray<number>
}

export const requireWrk = () => {
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" })
  } catch (error) {
    // wrk --version exits 1 after printing its version; only a missing binary throws ENOENT.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      console.error("bench: wrk is not installed. On Debian or Ubuntu: sudo apt-get install wrk")
      process.exit(1)
    }
  }
}

const millis = (value: string): number => {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim())
  if (match === null) return Number.NaN
  const n = Number(match[1])
  return match[2] === "us" ? n / 1000 : match[2] === "ms" ? n : match[2] === "s" ? n * 1000 : n * 60_000
}

export const parseReport = (report: string): Figures => {
  const requests = Number(/(\d+) requests in/.exec(report)?.[1] ?? 0)
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(report)?.[1])
  const p50 = millis(/\s50%\s+(\S+)/.exec(report)?.[1] ?? "")
  const p99 = millis(/\s99%\s+(\S+)/.exec(report)?.[1] ?? "")
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(report)?.[1] ?? 0)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(report)
  const socketErrors = socket === null ? 0 : socket.slice(1).reduce((n, x) => n + Number(x), 0)
  const quantiles = [...report.matchAll(/^quantile (\d+)$/gm)].map((match) => Number(match[1]) / 1000)
  return { requests, rps, p50, p99, errors: non2xx + socketErrors, ...(quantiles.length > 0 ? { quantiles } : {}) }
}

/**
 * The `p` percentile (0-100) of several runs' latencies taken together, as if one run had recorded them
 * all: each run's quantiles weighted by its requests. A p99 of 15 runs of 2 s, where the median of their
 * own p99s moved by a factor of ten with whichever slice a hiccup of the machine fell in.
 */
export const pooledPercentile = (runs: ReadonlyArray<Figures>, p: number): number => {
  const points = runs.flatMap((run) => {
    const quantiles = run.quantiles ?? []
    return quantiles.map((ms) => ({ ms, weight: run.requests / quantiles.length }))
  })
  if (points.length === 0) return Number.NaN
  points.sort((a, b) => a.ms - b.ms)
  const wanted = (p / 100) * points.reduce((sum, point) => sum + point.weight, 0)
  let below = 0
  for (const point of points) {
    below += point.weight
    if (below >= wanted) return point.ms
  }
  return points.at(-1)!.ms
}

export interface Load {
  readonly url: string
  readonly script: "read.lua" | "vote.lua"
  readonly seconds: number
  readonly connections: number
  readonly threads: number
  readonly env: NodeJS.ProcessEnv
}

export const runWrk = (load: Load): Promise<Figures> =>
  new Promise((done, fail) => {
    execFile(
      "wrk",
      [
        `-t${load.threads}`,
        `-c${load.connections}`,
        `-d${load.seconds}s`,
        "--latency",
        "-s",
        resolve(ROOT, "bench", "wrk", load.script),
        load.url
      ],
      { env: { ...process.env, ...load.env }, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => (error ? fail(new Error(`wrk failed: ${stderr || error.message}`)) : done(parseReport(stdout)))
    )
  })
