/**
 * The relevance set run on a store of its own (packages/fixtures/src/relevance.ts):
 * every query's products must be in its first five results, and first where the query names
 * the one that answers all of its words. The score is printed
 * (docs/database.md records it); the test passes only when every query does.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { CatalogStore, type Stores } from "@productdir/domain"
import { relevanceCatalog, relevanceQueries } from "@productdir/fixtures/relevance"

export const relevanceSuite = (name: string, stores: Layer.Layer<Stores, unknown>) =>
  describe(`relevance set: ${name}`, () => {
    layer(stores, { timeout: "120 seconds" })((it) => {
      it.effect("every query finds its products in the first five results", () =>
        Effect.gen(function* () {
          const store = yield* CatalogStore
          const catalog = relevanceCatalog()
          yield* store.upsert(catalog)
          const queries = relevanceQueries()
          const misses: Array<string> = []
          for (const query of queries) {
            const page = yield* store.list({ q: query.q, sort: "relevance", limit: 5 })
            const names = page.items.map((p) => p.content.name)
            const missing = query.top5.filter((n) => !names.includes(n))
            if (missing.length > 0) misses.push(`${query.kind} "${query.q}": missing ${missing.join(", ")}; got ${names.join(", ")}`)
            else if (query.first !== undefined && names[0] !== query.first)
              misses.push(`${query.kind} "${query.q}": ${query.first} is not first; got ${names.join(", ")}`)
          }
          console.log(
            `relevance set on ${name}: ${queries.length - misses.length}/${queries.length} queries pass over ${catalog.length} records`
          )
          assert.deepStrictEqual(misses, [])
        })
      )
    })
  })
