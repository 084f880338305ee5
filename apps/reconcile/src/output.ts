/** The summary line, the progress line and the JSON report. */
import type { ReconcileSummary } from "@productdir/domain"
import cliProgress from "cli-progress"

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

/** Progress on stderr only when it is a terminal. */
export const makeProgress = (stream: NodeJS.WriteStream = process.stderr) => {
  if (!stream.isTTY) return { update: (_: ReconcileSummary) => undefined, stop: () => undefined }
  const bar = new cliProgress.SingleBar({
    stream,
    format: "{value} products checked | {drifted} drifted | {repaired} repaired",
    hideCursor: true,
    clearOnComplete: true
  }, cliProgress.Presets.shades_classic)
  bar.start(0, 0, { drifted: 0, repaired: 0 })
  return {
    update: (s: ReconcileSummary) => bar.update(s.checked, { drifted: s.drifted, repaired: s.repaired }),
    stop: () => bar.stop()
  }
}
