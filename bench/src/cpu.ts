/**
 * CPU time from /proc (Linux): of one process, and of every PostgreSQL
 * process on the machine (the server the benchmarks use runs here). Read
 * before and after a measurement, it says how much CPU each request cost whom.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100

/** utime + stime of a process, and cutime + cstime (its children that exited), in ms; zeros once it is gone. */
const times = (pid: number): { readonly own: number; readonly children: number } => {
  try {
    // The command name is in parentheses and may hold spaces: count fields after its closing one.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number)
    const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND
    return { own: ms(fields[11]! + fields[12]!), children: ms(fields[13]! + fields[14]!) }
  } catch {
    return { own: 0, children: 0 }
  }
}

/** utime + stime of a process, in ms (0 once it is gone). */
export const cpuMillis = (pid: number): number => times(pid).own

/**
 * The CPU time of PostgreSQL, in ms: every process named postgres (the server and
 * its backends), and the backends and workers that exited meanwhile, which the
 * server's own children times keep (an autovacuum worker comes and goes).
 */
export const postgresCpuMillis = (): number => {
  let total = 0
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue
      const { own, children } = times(Number(entry))
      total += own + children
    } catch {
      // gone meanwhile
    }
  }
  return total
}
