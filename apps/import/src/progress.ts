/** A progress line on stderr, only when stderr is a terminal: pipes and CI logs get no escape codes. */
import cliProgress from "cli-progress"
import type { Tally } from "./importer.ts"

export interface Progress {
  readonly update: (tally: Tally) => void
  readonly stop: () => void
}

export const makeProgress = (stream: NodeJS.WriteStream = process.stderr): Progress => {
  if (!stream.isTTY) return { update: () => undefined, stop: () => undefined }
  const started = Date.now()
  const bar = new cliProgress.SingleBar({
    stream,
    format: "{value} records | {rate} records/s | {rejected} rejected",
    hideCursor: true,
    clearOnComplete: true
  }, cliProgress.Presets.shades_classic)
  bar.start(0, 0, { rate: 0, rejected: 0 })
  return {
    update: (tally) =>
      bar.update(tally.read, {
        rate: Math.round((tally.read / Math.max(Date.now() - started, 1)) * 1000),
        rejected: tally.rejected
      }),
    stop: () => bar.stop()
  }
}
