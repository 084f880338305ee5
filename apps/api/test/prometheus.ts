/**
 * A real Prometheus for the tests (Debian's `prometheus` package): started with a configuration of
 * its own in a temporary directory, on a free loopback port, scraping one target every second, its
 * storage in that directory; stopped, and the directory removed, when the scope closes.
 */
import { Effect } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./processes.ts"

export const INSTALL_HINT =
  "The metrics test scrapes the API with a real Prometheus, and `prometheus` is not on PATH. Install it: `apt-get install -y prometheus` (Debian/Ubuntu; .ci/run does this), or put a Prometheus 2.x binary on PATH."

/** The first line `prometheus --version` prints, or undefined when no `prometheus` runs here. */
export const installedPrometheus = (): string | undefined => {
  try {
    return execFileSync("prometheus", ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).split("\n")[0]!
  } catch {
    return undefined
  }
}

/** Whether a `prometheus` binary runs here; the answer says how to get one when it does not. */
export const prometheusVersion = (): string => {
  const version = installedPrometheus()
  if (version === undefined) throw new Error(INSTALL_HINT)
  return version
}

/**
 * Why the real-Prometheus test cannot run here, or undefined when it can. A newcomer's machine without the
 * binary reports the test skipped with this reason; CI (`CI` set), which installs it, fails instead: a test
 * that silently stopped running there would hide what it checks.
 */
export const prometheusMissing = (): string | undefined =>
  installedPrometheus() === undefined && process.env.CI === undefined ? `skipped: no prometheus binary on PATH. ${INSTALL_HINT}` : undefined

export interface ScrapeTarget {
  /** host:port of the API. */
  readonly target: string
  readonly bearerToken?: string
}

export interface Prometheus {
  readonly url: string
  /** An instant query's result vector (`/api/v1/query`). */
  readonly query: (promql: string) => Promise<ReadonlyArray<{ readonly metric: Record<string, string>; readonly value: number }>>
  readonly output: () => string
}

const config = (scrape: ScrapeTarget) =>
  [
    "global:",
    "  scrape_interval: 1s",
    "  scrape_timeout: 900ms",
    "scrape_configs:",
    "  - job_name: productdir",
    "    metrics_path: /metrics",
    ...(scrape.bearerToken === undefined
      ? []
      : ["    authorization:", "      type: Bearer", `      credentials: ${JSON.stringify(scrape.bearerToken)}`]),
    "    static_configs:",
    `      - targets: [${JSON.stringify(scrape.target)}]`,
    ""
  ].join("\n")

/** Prometheus scraping `scrape`, ready to answer queries. */
export const startPrometheus = (scrape: ScrapeTarget) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const dir = mkdtempSync(join(tmpdir(), "productdir-prometheus-"))
      writeFileSync(join(dir, "prometheus.yml"), config(scrape))
      const port = await freePort()
      const child: ChildProcess = spawn(
        "prometheus",
        [
          `--config.file=${join(dir, "prometheus.yml")}`,
          `--storage.tsdb.path=${join(dir, "data")}`,
          `--web.listen-address=127.0.0.1:${port}`,
          "--log.level=warn"
        ],
        { stdio: ["ignore", "pipe", "pipe"] }
      )
      let output = ""
      const keep = (chunk: string) => {
        output += chunk
      }
      child.stdout!.setEncoding("utf8").on("data", keep)
      child.stderr!.setEncoding("utf8").on("data", keep)
      const url = `http://127.0.0.1:${port}`
      const started = Date.now()
      for (;;) {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output}`)
        const ready = await fetch(`${url}/-/ready`).then(
          (r) => r.ok,
          () => false
        )
        if (ready) break
        if (Date.now() - started > 60_000) throw new Error(`prometheus was not ready within 60 s:\n${output}`)
        await new Promise((r) => setTimeout(r, 200))
      }
      const prometheus: Prometheus = {
        url,
        output: () => output,
        query: async (promql) => {
          const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`)
          const body = (await response.json()) as {
            status: string
            error?: string
            data?: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> }
          }
          if (body.status !== "success" || body.data === undefined) throw new Error(`query ${promql} failed: ${body.error}`)
          return body.data.result.map((sample) => ({ metric: sample.metric, value: Number(sample.value[1]) }))
        }
      }
      return { prometheus, child, dir }
    }),
    ({ child, dir }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            const done = () => {
              rmSync(dir, { recursive: true, force: true })
              resolve()
            }
            if (child.exitCode !== null) return done()
            child.once("exit", done)
            child.kill("SIGTERM")
            setTimeout(() => child.kill("SIGKILL"), 10_000).unref()
          })
      )
  ).pipe(Effect.map(({ prometheus }) => prometheus))

/** Polls `probe` until `check` holds, for at most `ms`; fails with the last value seen. */
export const eventually = async <A>(ms: number, probe: () => Promise<A>, check: (a: A) => boolean): Promise<A> => {
  const started = Date.now()
  for (;;) {
    const value = await probe()
    if (check(value)) return value
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms; last seen: ${JSON.stringify(value)}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}
