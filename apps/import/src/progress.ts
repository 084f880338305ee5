/** The import's progress line: records, records/s, rejections (on a terminal only). */
import { makeProgress as progressLine } from "@productdir/runtime"
import type { Tally } from "@productdir/usecases"

export const makeProgress = () => {
  const started = Date.now()
  const line = progressLine("{value} records | {rate} records/s | {rejected} rejected", { rate: 0, rejected: 0 })
  return {
    update: (tally: Tally) =>
      line.update(tally.read, { rate: Math.round((tally.read / Math.max(Date.now() - started, 1)) * 1000), rejected: tally.rejected }),
    stop: line.stop
  }
}
