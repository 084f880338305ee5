/**
 * Records as large as the documented limits let them be (about 1 MB each: fixtures' bulkyRecord): what the store
 * hands out is bounded by bytes, not by counts. A listing page carries each product's summary fields only, never its
 * whole record; a scan (the export's pages) carries at most SCAN_BYTES of records a page, however many it was asked
 * for. On PGlite, and on the server when DATABASE_URL is set.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted, Stream } from "effect"
import { CatalogStore, fromImportRecord, type ProductId } from "@productdir/domain"
import { bulkyRecord } from "@productdir/fixtures"
import { generateRecord } from "@productdir/fixtures/generator"
import { layerPglite, layerPostgres } from "../src/index.ts"
import { SCAN_BYTES } from "../src/SqlCatalogStore.ts"
import { freshDatabaseUrl, testStores } from "../src/testing.ts"

const BULKY = 24
const SMALL = 30
const bulky = Array.from({ length: BULKY }, (_, i) => {
  const record = bulkyRecord(i)
  return fromImportRecord(record, record.id as ProductId).input
})
const small = Array.from({ length: SMALL }, (_, i) => {
  const record = generateRecord(99, i)
  return fromImportRecord(record, record.id as ProductId).input
})

const behaviours = (name: string, stores: Layer.Layer<CatalogStore, unknown>) =>
  describe(`large records on ${name}`, () => {
    layer(stores, { timeout: "180 seconds" })((it) => {
      it.effect("the listing carries a page's summaries, not its records", () =>
        Effect.gen(function* () {
          const catalog = yield* CatalogStore
          yield* catalog.upsert([...bulky, ...small])
          const page = yield* catalog.list({ sort: "name", limit: 100 })
          expect(page.items).toHaveLength(BULKY + SMALL)
          for (const item of page.items) expect(Object.keys(item.content).sort()).toEqual(["ai_summary", "category", "name", "pricing"])
          const first = page.items.find((item) => item.id === bulky[0]!.id)!
          expect(first.content.ai_summary).toBe(bulky[0]!.content.ai_summary)
          expect(first.content.pricing).toEqual({ model: bulky[0]!.content.pricing.model })
          expect(JSON.stringify(page.items).length).toBeLessThan(BULKY * 20_000 + SMALL * 5_000)
        })
      )

      it.effect(`a scan's pages hold at most ${SCAN_BYTES / 1024 / 1024} MiB of records, and every product once`, () =>
        Effect.gen(function* () {
          const catalog = yield* CatalogStore
          const pages = yield* catalog.scan(1_000).pipe(Stream.chunks, Stream.runCollect)
          const sizes = pages.map((page) => page.reduce((bytes, product) => bytes + JSON.stringify(product.content).length, 0))
          // A page may pass the bound by its last record only: the bytes before that record are within it.
          for (const [i, page] of pages.entries()) {
            const last = JSON.stringify(page.at(-1)!.content).length
            expect(sizes[i]! - last, `page ${i}`).toBeLessThan(SCAN_BYTES)
          }
          expect(pages.length).toBeGreaterThanOrEqual(3)
          const ids = pages.flat().map((product) => product.id)
          expect(new Set(ids).size).toBe(BULKY + SMALL)
          expect(ids).toEqual([...ids].sort())
        })
      )
    })
  })

const { pglite, server } = testStores()
reportLeftOut("large records", storesLeftOut())
if (pglite) behaviours("PGlite", layerPglite())
if (server !== undefined)
  behaviours("PostgreSQL", Layer.unwrap(Effect.map(freshDatabaseUrl(server), ({ url }) => layerPostgres(Redacted.make(url)))))
