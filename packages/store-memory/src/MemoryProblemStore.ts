/** ProblemStore over the in-memory state. */
import { Effect, Layer } from "effect"
import { ProblemStore, type ReportedProblem } from "@productdir/domain"
import { MemoryState, type State } from "./State.ts"

const make = (state: State) =>
  ProblemStore.of({
    reported: (id) =>
      Effect.sync(() => {
        const out: Array<ReportedProblem> = []
        for (const [key, voters] of state.reports.get(id) ?? []) {
          // A report counts as its vote does: a revoked agent's stay, marked, and are not counted, nor are those of
          // votes held (until the integrity pass counts them) or discounted.
          const reports = [...voters.entries()]
            .filter(([voter, r]) => r.revokedAt === null && (state.votes.get(id)?.get(voter)?.counting ?? "counted") === "counted")
            .map(([, r]) => r)
          if (reports.length === 0) continue
          const first = reports.reduce((a, b) => (b.at < a.at ? b : a))
          const last = reports.reduce((a, b) => (b.at > a.at ? b : a))
          out.push({ key, summary: first.summary, reports: reports.length, firstReportedAt: first.at, lastReportedAt: last.at })
        }
        return out
      })
  })

export const layer = Layer.effect(ProblemStore, MemoryState.useSync(make))
