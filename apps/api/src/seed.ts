/**
 * The sample catalog on first start (docs/operations.md, "The embedded database"): an empty store is seeded
 * once, when SEED asks for it (default: yes for embedded stores, no for a server).
 */
import { Clock, Effect } from "effect"
import { CatalogStore, Settings } from "@productdir/domain"
import { sampleCatalog } from "@productdir/fixtures/sample"
import type { StoreKind } from "@productdir/runtime"

export const seedSampleIfEmpty = Effect.fn("seedSampleIfEmpty")(function* (seed: "sample" | "none" | undefined, kind: StoreKind) {
  if ((seed ?? (kind === "postgres" ? "none" : "sample")) === "none") return 0
  const catalog = yield* CatalogStore
  const settings = yield* Settings
  const stamp = new Date(yield* Clock.currentTimeMillis).toISOString()
  // The first process to stamp the store seeds it; a pruned-empty catalog is not re-seeded.
  if ((yield* settings.getOrInit("sample_seeded_at", stamp)) !== stamp) return 0
  const existing = yield* catalog.list({ sort: "name", limit: 1 })
  if (existing.items.length > 0) return 0
  const outcomes = yield* catalog.upsert(sampleCatalog())
  yield* Effect.logInfo(`seeded the sample catalog: ${outcomes.length} products`)
  return outcomes.length
})
