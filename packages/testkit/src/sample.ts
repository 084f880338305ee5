/**
 * The bundled sample catalog: fictional but realistic products, what
 * `npm start` seeds an empty store with. Validated with the domain's import
 * schema on load, so a broken edit fails loudly.
 */
import { Schema } from "effect"
import { fromImportRecord, ImportRecord, type ProductId, type ProductInput } from "@productdir/domain"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

export const SAMPLE_CATALOG_PATH = fileURLToPath(new URL("../data/sample-catalog.ndjson", import.meta.url))

const decode = Schema.decodeUnknownSync(ImportRecord)

export const sampleRecords = (): ReadonlyArray<ImportRecord> =>
  readFileSync(SAMPLE_CATALOG_PATH, "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line, i) => {
      try {
        return decode(JSON.parse(line), { onExcessProperty: "error" })
      } catch (error) {
        throw new Error(`sample catalog line ${i + 1}: ${String(error)}`)
      }
    })

/** The sample catalog as store inputs (every sample record carries its id). */
export const sampleCatalog = (): ReadonlyArray<ProductInput> =>
  sampleRecords().map((record) => fromImportRecord(record, record.id as ProductId).input)
