/** A one-line progress display on stderr, only when stderr is a terminal: pipes and CI logs get no escape codes. */
import cliProgress from "cli-progress"

export interface Progress<P extends Record<string, number>> {
  readonly update: (count: number, payload: P) => void
  readonly stop: () => void
}

/**
 * `format` uses cli-progress tokens: `{value}` is the count, `{bar}`, `{percentage}` and `{eta_formatted}` are of
 * `total` (when the work's size is known), other `{names}` come from the payload.
 */
export const makeProgress = <P extends Record<string, number>>(
  format: string,
  initial: P,
  stream: NodeJS.WriteStream = process.stderr,
  total = 0
): Progress<P> => {
  if (!stream.isTTY) return { update: () => undefined, stop: () => undefined }
  const bar = new cliProgress.SingleBar(
    { stream, format, hideCursor: true, clearOnComplete: true, etaBuffer: 50 },
    cliProgress.Presets.shades_classic
  )
  bar.start(total, 0, initial)
  return { update: (count, payload) => bar.update(count, payload), stop: () => bar.stop() }
}
