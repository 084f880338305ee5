/** Export: every live product as NDJSON in the import shape, streamed page by page. */
import { Effect, Stream } from "effect"
import { CatalogStore, defaultUtm, toExportRecord } from "@productdir/domain"
import type { Writable } from "node:stream"

const write = (sink: Writable, text: string) =>
  Effect.callback<void>((resume) => {
    if (sink.write(text)) resume(Effect.void)
    else sink.once("drain", () => resume(Effect.void))
  })

export const runExport = Effect.fn("Exporter.run")(function* (sink: Writable) {
  const catalog = yield* CatalogStore
  let count = 0
  yield* catalog.scan(1000).pipe(
    Stream.grouped(1000),
    Stream.runForEach((products) => {
      count += products.length
      return write(sink, products.map((p) => `${JSON.stringify(toExportRecord(p, defaultUtm))}\n`).join(""))
    })
  )
  return count
})
