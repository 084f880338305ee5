/**
 * CPU time from /proc (Linux): of one process, and of every PostgreSQL
 * process on the machine (the server the benchmarks use runs here). Read
 * before and after a measurement, it says how much CPU each request cost whom.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100

/** utime + stime of a process, in ms (0 once it is gone). */
export const cpuMillis = (pid: number): number => {
  try {
    // The command name is in parentheses and may hold spaces: count fields after its closing one.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND
  } catch {
    return 0
  }
}

/** The CPU time of every process named postgres (the server and its backends), in ms. */
export const postgresCpuMillis = (): number => {
  let total = 0
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") total += cpuMillis(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return total
}
