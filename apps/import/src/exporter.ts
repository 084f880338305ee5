/**
 * Export: the use case's records (CatalogExport), written to a sink as NDJSON, page by page.
 *
 * A sink that fails (a full disk, a file that cannot be made, a pipe closed with an error) says so once, as
 * an `error` event, and takes no more: a write waiting for `drain` would wait forever. The export watches for
 * it from its first write to the sink's last byte, and fails with it (exit 2), where it would hang without a word.
 */
import { Deferred, Effect, Exit, Stream } from "effect"
import { CatalogExport } from "@productdir/usecases"
import type { Writable } from "node:stream"
import { InputError } from "./records.ts"

export const runExport = Effect.fn("Exporter.run")(function* (sink: Writable, name: string, ends: boolean) {
  const failed = yield* Deferred.make<never, InputError>()
  const onError = (error: Error) =>
    Deferred.doneUnsafe(failed, Exit.fail(new InputError({ message: `cannot write the export to ${name}: ${error.message}` })))
  sink.on("error", onError)
  /** Waits for `wait` to call back, or for the sink to fail, whichever comes first. */
  const watched = (wait: (done: () => void) => void) =>
    Effect.raceFirst(
      Deferred.await(failed),
      Effect.callback<void>((resume) => wait(() => resume(Effect.void)))
    )
  const write = (text: string) =>
    watched((done) => {
      if (sink.write(text)) done()
      else sink.once("drain", done)
    })
  let count = 0
  yield* CatalogExport.exportRecords().pipe(
    Stream.runForEach((records) => {
      count += records.length
      return write(records.map((record) => `${JSON.stringify(record)}\n`).join(""))
    })
  )
  // Its last bytes written (a file: flushed and closed), or its failure.
  if (ends)
    yield* watched((done) => {
      sink.once("finish", done)
      sink.end()
    })
  // A failure already seen (stdout's, say, which is not ended) is still the export's.
  if (yield* Deferred.isDone(failed)) yield* Deferred.await(failed)
  return count
})
