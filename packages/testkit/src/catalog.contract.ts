/** Catalog behaviours: finding products, upserting batches, slugs, removal. */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { CatalogStore, type Slug, VoteLedger, addressVoter } from "@productdir/domain"
import { TestClock } from "effect/testing"
import { freshInput, listAll, madeUpWord, rng, uniqueCategory, upsertOne } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

export const catalogBehaviours = (it: ContractIt) => {
  // ---- catalog: reads -------------------------------------------------
  it.effect("find by id returns what was upserted", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const input = freshInput({ seed: { up: 3, down: 1 } })
      yield* store.upsert([input])
      const p = yield* store.find(input.id)
      assert.strictEqual(p.id, input.id)
      assert.deepStrictEqual(p.content, input.content)
      assert.deepStrictEqual(p.seed, { up: 3, down: 1 })
      assert.deepStrictEqual(p.counters, { up: 3, down: 1 })
      assert.strictEqual(p.version, 1)
      assert.isNull(p.removedAt)
    })
  )

  it.effect("find accepts an upper-case id", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const input = freshInput()
      yield* store.upsert([input])
      assert.strictEqual((yield* store.find(input.id.toUpperCase())).id, input.id)
    })
  )

  it.effect("an unknown id or slug is ProductNotFound", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const byId = yield* Effect.flip(store.find("00000000-0000-4000-8000-000000000000"))
      assert.strictEqual(byId._tag, "ProductNotFound")
      const bySlug = yield* Effect.flip(store.find("no-such-product-anywhere"))
      assert.strictEqual(bySlug._tag, "ProductNotFound")
    })
  )

  it.effect("find by slug", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const input = freshInput()
      const { slug } = yield* upsertOne(input)
      assert.strictEqual((yield* store.find(slug)).id, input.id)
    })
  )

  // ---- catalog: upserts ------------------------------------------------
  it.effect("a new product is created at version 1 with counters equal to its seed", () =>
    Effect.gen(function* () {
      const input = freshInput({ seed: { up: 7, down: 2 } })
      const outcome = yield* upsertOne(input)
      assert.strictEqual(outcome.status, "created")
      const p = yield* CatalogStore.use((s) => s.find(input.id))
      assert.deepStrictEqual([p.version, p.counters], [1, { up: 7, down: 2 }])
    })
  )

  it.effect("re-upserting the same input is unchanged: version and updated_at stay", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const input = freshInput()
      yield* store.upsert([input])
      const before = yield* store.find(input.id)
      yield* TestClock.adjust("1 second")
      const again = yield* store.upsert([input])
      assert.strictEqual(again[0]!.status, "unchanged")
      const after = yield* store.find(input.id)
      assert.strictEqual(after.version, before.version)
      assert.strictEqual(after.updatedAt.getTime(), before.updatedAt.getTime())
    })
  )

  it.effect("a content change bumps version and updated_at", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const input = freshInput()
      yield* store.upsert([input])
      const before = yield* store.find(input.id)
      yield* TestClock.adjust("1 second")
      const changed = { ...input, content: { ...input.content, ai_summary: `${input.content.ai_summary} Now with SSO.` } }
      assert.strictEqual((yield* store.upsert([changed]))[0]!.status, "updated")
      const after = yield* store.find(input.id)
      assert.strictEqual(after.version, before.version + 1)
      assert.isTrue(after.updatedAt.getTime() > before.updatedAt.getTime())
      assert.strictEqual(after.content.ai_summary, changed.content.ai_summary)
    })
  )

  it.effect("a seed change moves the counters by the difference and keeps live votes", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const ledger = yield* VoteLedger
      const input = freshInput({ seed: { up: 10, down: 5 } })
      yield* store.upsert([input])
      yield* ledger.cast({ entity: input.id, voter: addressVoter("v1"), direction: "up" })
      const outcome = yield* store.upsert([{ ...input, seed: { up: 12, down: 1 } }])
      assert.strictEqual(outcome[0]!.status, "updated")
      const p = yield* store.find(input.id)
      assert.deepStrictEqual(p.counters, { up: 13, down: 1 })
      assert.deepStrictEqual(p.seed, { up: 12, down: 1 })
    })
  )

  it.effect("a batch reports outcomes in input order", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const a = freshInput()
      const b = freshInput()
      yield* store.upsert([a, b])
      const c = freshInput()
      const changedB = { ...b, content: { ...b.content, key_features: ["Changed"] } }
      const outcomes = yield* store.upsert([c, a, changedB])
      assert.deepStrictEqual(
        outcomes.map((o) => [o.id, o.status]),
        [
          [c.id, "created"],
          [a.id, "unchanged"],
          [b.id, "updated"]
        ]
      )
    })
  )

  it.effect("a repeated id within one batch: the last one wins", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const a = freshInput()
      const a2 = { ...a, content: { ...a.content, ai_summary: "Second version." } }
      const outcomes = yield* store.upsert([a, a2])
      assert.deepStrictEqual(
        outcomes.map((o) => o.status),
        ["created", "updated"]
      )
      const p = yield* store.find(a.id)
      assert.strictEqual(p.content.ai_summary, "Second version.")
      assert.strictEqual(p.version, 2)
    })
  )

  it.effect("preview tells what an upsert would do and writes nothing", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const a = freshInput()
      const b = freshInput()
      yield* store.upsert([a, b])
      const c = freshInput()
      const changedB = { ...b, content: { ...b.content, ai_summary: "Changed." } }
      const inputs = [c, a, changedB, { ...c, seed: { up: 9, down: 0 } }]
      const previewed = yield* store.preview(inputs)
      assert.deepStrictEqual(previewed, ["created", "unchanged", "updated", "updated"])
      assert.strictEqual((yield* Effect.flip(store.find(c.id)))._tag, "ProductNotFound")
      assert.strictEqual((yield* store.find(b.id)).content.ai_summary, b.content.ai_summary)
      assert.deepStrictEqual(
        (yield* store.upsert(inputs)).map((o) => o.status),
        previewed
      )
    })
  )

  it.effect("an empty batch is a no-op", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      assert.deepStrictEqual(yield* store.upsert([]), [])
    })
  )

  // ---- slugs -------------------------------------------------------------
  it.effect("slugs come from the name, diacritics stripped", () =>
    Effect.gen(function* () {
      const tag = rng.uuid().slice(0, 8)
      const outcome = yield* upsertOne(freshInput({ name: `Crème Brûlée ${tag}` }))
      assert.strictEqual(outcome.slug, `creme-brulee-${tag}`)
    })
  )

  it.effect("colliding names get -2, -3", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const tag = rng.uuid().slice(0, 8)
      const outcomes = yield* store.upsert([freshInput({ name: `Pulse Board ${tag}` }), freshInput({ name: `pulse-board ${tag}!` })])
      const third = yield* upsertOne(freshInput({ name: `PULSE BOARD ${tag}` }))
      assert.deepStrictEqual(
        [...outcomes.map((o) => o.slug), third.slug],
        [`pulse-board-${tag}`, `pulse-board-${tag}-2`, `pulse-board-${tag}-3`]
      )
    })
  )

  it.effect("names that share their first 80 characters get unique slugs, one upsert at a time or many at once", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const tag = rng.uuid().slice(0, 8)
      const long = `Meridian ${tag} Continuous Compliance Evidence Collection and Audit Readiness Platform for Regulated Teams`
      // One at a time (an import of one file each), then a batch, then again one at a time: past -9 the
      // suffix is longer and the base is cut shorter, so the variants do not all share one prefix.
      const outcomes = []
      for (let i = 0; i < 12; i++) outcomes.push(yield* upsertOne(freshInput({ name: `${long} ${String.fromCharCode(65 + i)}` })))
      outcomes.push(...(yield* store.upsert(Array.from({ length: 5 }, (_, i) => freshInput({ name: `${long} Batch ${i}` })))))
      outcomes.push(yield* upsertOne(freshInput({ name: `${long} Z` })))
      const slugs = outcomes.map((o) => o.slug)
      assert.strictEqual(new Set(slugs).size, slugs.length, `slugs: ${slugs.join(", ")}`)
      for (const slug of slugs) assert.isAtMost(slug.length, 80, slug)
      for (const outcome of outcomes) assert.strictEqual((yield* store.find(outcome.slug)).id, outcome.id)
    })
  )

  // An import writes batches side by side (packages/usecases/src/CatalogImport.ts): on the SQL stores each in its
  // own transaction, neither seeing what the other has not committed yet.
  it.effect("batches upserted at once never share a slug, and each product is searchable", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const tag = rng.uuid().slice(0, 8)
      const word = `${madeUpWord()}${tag.replace(/\d/g, "")}`
      const named = (name: string, slug?: Slug) =>
        freshInput({ name: `${name} ${tag}`, summary: `Made for ${word} teams.`, ...(slug !== undefined ? { slug } : {}) })
      // Big enough that the transactions overlap (each also opens a connection of its own at first).
      const batch = () => Array.from({ length: 40 }, (_, i) => named(i % 2 === 0 ? "Relay Desk" : "Orbit Notes"))
      const batches = [batch(), [...batch(), named("Other", `relay-desk-${tag}-2` as Slug)], batch()]
      const outcomes = (yield* Effect.all(
        batches.map((batch) => store.upsert(batch)),
        { concurrency: "unbounded" }
      )).flat()
      assert.deepStrictEqual(
        outcomes.map((o) => o.status),
        outcomes.map(() => "created")
      )
      const slugs = outcomes.map((o) => o.slug)
      assert.strictEqual(new Set(slugs).size, slugs.length, `slugs: ${slugs.join(", ")}`)
      for (const slug of slugs) assert.match(slug, new RegExp(`^(relay-desk|orbit-notes)-${tag}(-\\d+)*$`))
      for (const outcome of outcomes) assert.strictEqual((yield* store.find(outcome.slug)).id, outcome.id)
      const found = yield* listAll({ q: word, sort: "relevance", limit: 50 })
      assert.deepStrictEqual(found.items.map((p) => p.id).sort(), outcomes.map((o) => o.id).sort())
    })
  )

  it.effect("a requested slug is honoured", () =>
    Effect.gen(function* () {
      const slug = `chosen-${rng.uuid().slice(0, 8)}` as Slug
      assert.strictEqual((yield* upsertOne(freshInput({ slug }))).slug, slug)
    })
  )

  it.effect("the slug is kept on rename", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const input = freshInput()
      const { slug } = yield* upsertOne(input)
      const renamed = yield* upsertOne({ ...input, content: { ...input.content, name: "Entirely New Name" } })
      assert.strictEqual(renamed.slug, slug)
      assert.strictEqual((yield* store.find(slug)).content.name, "Entirely New Name")
    })
  )

  // ---- removal -----------------------------------------------------------
  it.effect("a removed product is ProductRemoved, and removal counts only live products", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const input = freshInput()
      const { slug } = yield* upsertOne(input)
      assert.strictEqual(yield* store.remove([input.id]), 1)
      assert.strictEqual(yield* store.remove([input.id]), 0)
      assert.strictEqual((yield* Effect.flip(store.find(input.id)))._tag, "ProductRemoved")
      assert.strictEqual((yield* Effect.flip(store.find(slug)))._tag, "ProductRemoved")
    })
  )

  it.effect("removed products leave listings and categories", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const category = uniqueCategory()
      const a = freshInput({ category })
      const b = freshInput({ category })
      yield* store.upsert([a, b])
      yield* store.remove([a.id])
      const page = yield* store.list({ category, sort: "name", limit: 10 })
      assert.deepStrictEqual(
        page.items.map((p) => p.id),
        [b.id]
      )
      const categories = yield* store.categories
      assert.deepStrictEqual(
        categories.find((c) => c.category === category),
        { category, count: 1 }
      )
    })
  )

  it.effect("upserting a removed product restores it", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const input = freshInput()
      yield* store.upsert([input])
      yield* store.remove([input.id])
      assert.strictEqual((yield* store.upsert([input]))[0]!.status, "updated")
      assert.isNull((yield* store.find(input.id)).removedAt)
    })
  )
}
