/** The summary line, the progress line and the JSON report. */
import type { ReconcileSummary } from "@productdir/usecases"
import { makeProgress as progressLine } from "@productdir/runtime"

const n = (x: number) => x.toLocaleString("en")

export const summaryLine = (summary: ReconcileSummary, check: boolean, ms: number) =>
  `checked ${n(summary.checked)} products, drifted ${n(summary.drifted)}, repaired ${n(summary.repaired)}${check ? " (--check: report only)" : ""}, votes scanned ${n(summary.votesScanned)}, in ${(ms / 1000).toFixed(1)} s`

export const reportJson = (summary: ReconcileSummary, check: boolean, startedAt: Date, ms: number) => ({
  mode: check ? "check" : "repair",
  started_at: startedAt.toISOString(),
  duration_ms: ms,
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
