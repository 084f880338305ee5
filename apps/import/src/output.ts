/** What the importer prints: rejections as they come, a summary at the end, the JSON report. */
import type { ImportResult, Tally } from "@productdir/usecases"
import type { Rejection } from "@productdir/usecases"

/**
 * Text from the input as a terminal may show it: control characters (an escape sequence that clears the screen,
 * a NUL, C1 controls) and the bidirectional overrides as `\u` escapes. A rejection quotes the line it could not
 * read, and a file could otherwise write to the terminal of whoever imports it.
 */
export const printable = (text: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this function's purpose.
  text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

export const rejectionLine = (r: Rejection): string =>
  printable(`${r.where}: rejected: ${r.errors.map((e) => `${e.path}: ${e.message.replace(/\s+/g, " ")}`).join("; ")}`)

const perSecond = (tally: Tally, ms: number) => Math.round((tally.read / Math.max(ms, 1)) * 1000)

export const summaryText = (input: string, result: ImportResult, dryRun: boolean): string => {
  const { tally } = result
  const rows: Array<[string, number]> = [
    ["created", tally.created],
    ["updated", tally.updated],
    ["unchanged", tally.unchanged],
    ["removed", tally.removed],
    ["rejected", tally.rejected],
    ["warnings", tally.warnings]
  ]
  const width = Math.max(...rows.map(([, n]) => n.toLocaleString("en").length))
  const verb = dryRun
    ? "checked (dry run, nothing written)"
    : result.wroteNothing
      ? "checked (strict: nothing written)"
      : result.stoppedBy !== undefined
        ? "stopped part-way through"
        : "imported"
  return [
    `${verb} ${input}: ${tally.read.toLocaleString("en")} ${tally.read === 1 ? "record" : "records"} in ${(result.durationMs / 1000).toFixed(1)} s (${perSecond(tally, result.durationMs).toLocaleString("en")} records/s)`,
    ...rows.map(
      ([label, n]) =>
        `  ${label.padEnd(10)} ${n.toLocaleString("en").padStart(width)}${dryRun && n > 0 && label !== "rejected" && label !== "warnings" ? " (would be)" : ""}`
    ),
    ...result.warnings.slice(0, 20).map((w) => `  warning: ${printable(`${w.where}: ${w.message}`)}`),
    ...(result.warnings.length > 20 ? [`  … ${tally.warnings - 20} more warnings (--report has them all)`] : []),
    ...(result.pruneSkipped ? [`  prune skipped: ${result.pruneSkipped}`] : [])
  ].join("\n")
}

export const reportJson = (
  input: string,
  result: ImportResult,
  options: { readonly dryRun: boolean; readonly strict: boolean; readonly prune: boolean }
) => ({
  input,
  dry_run: options.dryRun,
  strict: options.strict,
  prune: options.prune,
  wrote_nothing: result.wroteNothing,
  summary: {
    ...result.tally,
    duration_ms: result.durationMs,
    records_per_second: perSecond(result.tally, result.durationMs)
  },
  prune_skipped: result.pruneSkipped ?? null,
  rejections: result.rejections.map((r) => ({ ...r.position, errors: r.errors })),
  warnings: result.warnings
})
