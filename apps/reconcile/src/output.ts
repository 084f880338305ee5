/** The summary line, the progress line and the JSON report. */
import type { PassReport, ReconcileSummary } from "@productdir/usecases"
import { makeProgress as progressLine } from "@productdir/runtime"

const n = (x: number) => x.toLocaleString("en")

export const summaryLine = (summary: ReconcileSummary, check: boolean, ms: number) =>
  `checked ${n(summary.checked)} products, drifted ${n(summary.drifted)}, repaired ${n(summary.repaired)}${check ? " (--check: report only)" : ""}, votes scanned ${n(summary.votesScanned)}, in ${(ms / 1000).toFixed(1)} s`

const plural = (count: number, one: string, many = `${one}s`) => `${n(count)} ${count === 1 ? one : many}`

export const integrityLine = (report: PassReport, ms: number) => {
  const groups = report.groups.length
  const fresh = report.groups.filter((g) => !g.known).length
  const found = `${plural(groups, "voter group")}${groups > 0 ? ` (${n(fresh)} new)` : ""}`
  const head = `integrity pass${report.applied ? "" : " (--check: report only)"}: read ${plural(report.votesRead, "vote")}, ${found}`
  return report.applied
    ? `${head}, ${plural(report.discounted, "vote")} discounted, ${plural(report.released, "held vote")} counted, ${plural(report.standing, "agent")} gained standing, ${plural(report.recounted, "product")} recounted, in ${(ms / 1000).toFixed(1)} s`
    : `${head}, would discount ${plural(report.discounted, "vote")} and count ${plural(report.released, "held vote")}, in ${(ms / 1000).toFixed(1)} s`
}

/** A line per group found, with where to read its evidence. */
/**
 * One line per group the pass found. Where to read its evidence is said only for a group that is saved: a check
 * saves nothing, so a new group it found is shown by `productdir-agents group` only once a pass has run.
 */
export const groupLines = (report: PassReport): ReadonlyArray<string> =>
  report.groups.map(
    (g) =>
      `  ${g.known ? "known" : "new"} group ${g.id} (${g.method}): ${plural(g.members, "member")}, ${plural(g.products, "product")}, ${plural(g.votes, "vote")}${g.review ? ` still counting, for your review${report.applied ? " (productdir-agents confirm discounts them)" : ""}` : ""}; ${g.known || report.applied ? `productdir-agents group ${g.id}` : "not saved by --check: a pass saves it"}`
  )

export const reportJson = (
  summary: ReconcileSummary,
  integrity: { readonly report: PassReport; readonly ms: number } | undefined,
  check: boolean,
  startedAt: Date,
  ms: number
) => ({
  mode: check ? "check" : "repair",
  started_at: startedAt.toISOString(),
  duration_ms: ms,
  // null with CROWD_DEFENSE=off: no pass ran.
  integrity:
    integrity === undefined
      ? null
      : {
          applied: integrity.report.applied,
          duration_ms: integrity.ms,
          votes_read: integrity.report.votesRead,
          discounted: integrity.report.discounted,
          released: integrity.report.released,
          standing: integrity.report.standing,
          recounted: integrity.report.recounted,
          groups: integrity.report.groups
        },
  checked: summary.checked,
  drifted: summary.drifted,
  repaired: summary.repaired,
  votes_scanned: summary.votesScanned,
  drifts: summary.drifts.map((d) => ({
    id: d.id,
    stored: { trust_up: d.stored.up, trust_down: d.stored.down },
    expected: { trust_up: d.expected.up, trust_down: d.expected.down }
  }))
})

/** The pass's progress line (on a terminal only). */
export const makeProgress = () => {
  const line = progressLine("{value} products checked | {drifted} drifted | {repaired} repaired", { drifted: 0, repaired: 0 })
  return {
    update: (s: ReconcileSummary) => line.update(s.checked, { drifted: s.drifted, repaired: s.repaired }),
    stop: line.stop
  }
}
