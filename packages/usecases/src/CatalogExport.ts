/**
 * Exporting the catalog: every live product in the import shape, in batches, so that an export
 * imported again changes nothing. Where the records go (a file, stdout) is the caller's.
 */
import { Effect, Stream } from "effect"
import { CatalogStore, defaultUtm, type ExportRecord, type StoreError, toExportRecord } from "@productdir/domain"

/**
 * Every live product as its export record, in batches of at most `batchSize`: the store's own pages, which are
 * bounded by bytes too (a thousand records of a megabyte each are not one batch).
 */
export const exportRecords = (batchSize = 1_000): Stream.Stream<ReadonlyArray<ExportRecord>, StoreError, CatalogStore> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const catalog = yield* CatalogStore
      return catalog.scan(batchSize).pipe(
        Stream.chunks,
        Stream.map((products) => products.map((product) => toExportRecord(product, defaultUtm)))
      )
    })
  )
