/**
 * The import's progress line, on a terminal only: records, records/s, rejections; and, reading a file (whose size is
 * known), a bar of the bytes read, the share done and the time left.
 */
import { makeProgress as progressLine } from "@productdir/runtime"
import type { Tally } from "@productdir/usecases"

export const makeProgress = (input: { readonly bytes: number | undefined; readonly read: () => number }) => {
  const started = Date.now()
  const known = input.bytes !== undefined && input.bytes > 0
  const line = known
    ? progressLine(
        "{bar} {percentage}% | {records} records | {rate} records/s | {rejected} rejected | {eta_formatted} left",
        { records: 0, rate: 0, rejected: 0 },
        process.stderr,
        input.bytes
      )
    : progressLine("{value} records | {rate} records/s | {rejected} rejected", { rate: 0, rejected: 0 })
  return {
    update: (tally: Tally) => {
      const rate = Math.round((tally.read / Math.max(Date.now() - started, 1)) * 1000)
      line.update(known ? Math.min(input.read(), input.bytes!) : tally.read, { records: tally.read, rate, rejected: tally.rejected })
    },
    stop: line.stop
  }
}
