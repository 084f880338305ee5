/** Listing and search: filters, orders, cursors, categories, scans. */
import { assert } from "@effect/vitest"
import { Clock, Effect, Stream } from "effect"
import { CatalogStore, type ListSort, trustScore } from "@productdir/domain"
import { TestClock } from "effect/testing"
import { freshInput, listAll, rng, uniqueCategory } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

export const listingBehaviours = (it: ContractIt) => {
  // ---- listing and search --------------------------------------------------
  it.effect("pages are stable: all pages together give every product once, in order", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const category = uniqueCategory()
      const inputs = Array.from({ length: 23 }, (_, i) => freshInput({ category, seed: { up: i % 5, down: i % 3 } }))
      yield* store.upsert(inputs)
      for (const sort of ["trust", "name", "updated"] as const) {
        const { items, pages } = yield* listAll({ category, sort, limit: 5 })
        assert.strictEqual(pages, 5)
        assert.strictEqual(new Set(items.map((p) => p.id)).size, 23)
        const single = yield* store.list({ category, sort, limit: 100 })
        assert.deepStrictEqual(
          items.map((p) => p.id),
          single.items.map((p) => p.id)
        )
        assert.isNull(single.nextCursor)
      }
    })
  )

  it.effect("sort=trust orders by trust score, best first", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const category = uniqueCategory()
      const seeds = [
        { up: 9, down: 1 },
        { up: 90, down: 10 },
        { up: 0, down: 0 },
        { up: 1, down: 5 },
        { up: 400, down: 3 }
      ]
      yield* store.upsert(seeds.map((seed) => freshInput({ category, seed })))
      const page = yield* store.list({ category, sort: "trust", limit: 10 })
      const scores = page.items.map((p) => trustScore(p.weighted))
      assert.deepStrictEqual(
        scores,
        [...scores].sort((a, b) => b - a)
      )
      assert.deepStrictEqual(page.items[0]!.seed, { up: 400, down: 3 })
    })
  )

  it.effect("sort=name is case-insensitive A to Z", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const category = uniqueCategory()
      yield* store.upsert(
        ["banana", "Apple", "cherry", "apricot"].map((name) => freshInput({ category, name: `${name} ${rng.uuid().slice(0, 4)}` }))
      )
      const page = yield* store.list({ category, sort: "name", limit: 10 })
      assert.deepStrictEqual(
        page.items.map((p) => p.content.name.split(" ")[0]),
        ["Apple", "apricot", "banana", "cherry"]
      )
    })
  )

  it.effect("sort=updated puts the latest change first", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const category = uniqueCategory()
      const a = freshInput({ category })
      const b = freshInput({ category })
      yield* store.upsert([a, b])
      yield* TestClock.adjust("1 second")
      yield* store.upsert([{ ...a, content: { ...a.content, ai_summary: "Changed." } }])
      const page = yield* store.list({ category, sort: "updated", limit: 10 })
      assert.strictEqual(page.items[0]!.id, a.id)
    })
  )

  it.effect("updated_since keeps only products changed since then", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const category = uniqueCategory()
      const a = freshInput({ category })
      yield* store.upsert([a])
      yield* TestClock.adjust("1 second")
      const since = new Date(yield* Clock.currentTimeMillis)
      yield* TestClock.adjust("1 second")
      const b = freshInput({ category })
      yield* store.upsert([b])
      const page = yield* store.list({ category, sort: "name", limit: 10, updatedSince: since })
      assert.deepStrictEqual(
        page.items.map((p) => p.id),
        [b.id]
      )
    })
  )

  it.effect("a cursor that is garbage, or from another sort, is InvalidCursor", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const category = uniqueCategory()
      yield* store.upsert([freshInput({ category }), freshInput({ category })])
      const page = yield* store.list({ category, sort: "name", limit: 1 })
      assert.isNotNull(page.nextCursor)
      const wrongSort = yield* Effect.flip(store.list({ category, sort: "trust", limit: 1, cursor: page.nextCursor! }))
      assert.strictEqual(wrongSort._tag, "InvalidCursor")
      const garbage = yield* Effect.flip(store.list({ sort: "name" as ListSort, limit: 1, cursor: "not-a-cursor!" }))
      assert.strictEqual(garbage._tag, "InvalidCursor")
    })
  )

  it.effect("categories count live products", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const category = uniqueCategory()
      yield* store.upsert([freshInput({ category }), freshInput({ category }), freshInput({ category })])
      const categories = yield* store.categories
      assert.deepStrictEqual(
        categories.find((c) => c.category === category),
        { category, count: 3 }
      )
      const names = categories.map((c) => c.category)
      assert.deepStrictEqual(
        names,
        [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      )
    })
  )

  it.effect("scan yields every live product once, absentFrom what a keep-set lacks", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const inputs = [freshInput(), freshInput(), freshInput()]
      yield* store.upsert(inputs)
      yield* store.remove([inputs[2]!.id])
      const scanned = yield* Stream.runCollect(store.scan(7))
      const ids = scanned.map((p) => p.id)
      assert.strictEqual(new Set(ids).size, ids.length)
      assert.isTrue(ids.includes(inputs[0]!.id) && ids.includes(inputs[1]!.id))
      assert.isFalse(ids.includes(inputs[2]!.id))
      const keep = new Set(ids.filter((id) => id !== inputs[1]!.id))
      const absent = yield* Stream.runCollect(store.absentFrom((id) => keep.has(id)))
      assert.deepStrictEqual(absent, [inputs[1]!.id])
    })
  )

  it.effect("ping answers", () => CatalogStore.use((s) => s.ping))
}
