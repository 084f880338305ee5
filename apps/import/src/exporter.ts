/** Export: the use case's records (CatalogExport), written to a sink as NDJSON, page by page. */
import { Effect, Stream } from "effect"
import { CatalogExport } from "@productdir/usecases"
import type { Writable } from "node:stream"

const write = (sink: Writable, text: string) =>
  Effect.callback<void>((resume) => {
    if (sink.write(text)) resume(Effect.void)
    else sink.once("drain", () => resume(Effect.void))
  })

export const runExport = Effect.fn("Exporter.run")(function* (sink: Writable) {
  let count = 0
  yield* CatalogExport.exportRecords().pipe(
    Stream.runForEach((records) => {
      count += records.length
      return write(sink, records.map((record) => `${JSON.stringify(record)}\n`).join(""))
    })
  )
  return count
})
