/**
 * The store contract: one suite of behaviours every store implementation
 * must pass (in-memory, embedded PGlite, PostgreSQL). Tests share one store
 * per run, so each works on products and categories of its own.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Stream } from "effect"
import {
  CatalogStore,
  fromImportRecord,
  JobLock,
  type ListQuery,
  type ListSort,
  type Product,
  type ProductId,
  type ProductInput,
  ProblemStore,
  problemsOf,
  Settings,
  type Slug,
  toTrust,
  trustScore,
  VoteLedger
} from "@productdir/domain"
import { Backdoor } from "./Backdoor.ts"
import { generateRecord } from "./generator.ts"
import { seeded } from "./random.ts"

export type ContractStores = CatalogStore | VoteLedger | ProblemStore | JobLock | Settings | Backdoor

const rng = seeded(Date.now() % 1_000_000)
let counter = 0

/** A fresh product input; `tag` becomes a unique category so a test sees only its own products. */
export const freshInput = (overrides: { name?: string; category?: string; seed?: { up: number; down: number }; slug?: Slug } = {}): ProductInput => {
  const n = ++counter
  const record = generateRecord(rng.int(1, 1_000_000), n)
  const base = fromImportRecord({ ...record, id: rng.uuid() as ProductId }, rng.uuid() as ProductId).input
  return {
    ...base,
    slug: overrides.slug,
    seed: overrides.seed ?? { up: 0, down: 0 },
    content: {
      ...base.content,
      name: overrides.name ?? `${base.content.name} ${rng.uuid().slice(0, 8)}`,
      category: overrides.category ?? base.content.category
    }
  }
}

const uniqueCategory = () => `Contract ${rng.uuid().slice(0, 12)}`

const listAll = (query: Omit<ListQuery, "cursor">) =>
  Effect.gen(function*() {
    const store = yield* CatalogStore
    const seen: Array<Product> = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = yield* store.list({ ...query, cursor })
      seen.push(...page.items)
      cursor = page.nextCursor ?? undefined
      pages++
    } while (cursor !== undefined && pages < 1000)
    return { items: seen, pages }
  })

const upsertOne = (input: ProductInput) =>
  CatalogStore.use((s) => s.upsert([input])).pipe(Effect.map((o) => o[0]!))

export const storeContract = (name: string, stores: Layer.Layer<ContractStores, unknown>) =>
  describe(`store contract: ${name}`, () => {
    layer(stores, { timeout: "120 seconds", excludeTestServices: true })((it) => {
      // ---- catalog: reads -------------------------------------------------
      it.effect("find by id returns what was upserted", () =>
        Effect.gen(function*() {
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
        }))

      it.effect("find accepts an upper-case id", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const input = freshInput()
          yield* store.upsert([input])
          assert.strictEqual((yield* store.find(input.id.toUpperCase())).id, input.id)
        }))

      it.effect("an unknown id or slug is ProductNotFound", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const byId = yield* Effect.flip(store.find("00000000-0000-4000-8000-000000000000"))
          assert.strictEqual(byId._tag, "ProductNotFound")
          const bySlug = yield* Effect.flip(store.find("no-such-product-anywhere"))
          assert.strictEqual(bySlug._tag, "ProductNotFound")
        }))

      it.effect("find by slug", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const input = freshInput()
          const { slug } = yield* upsertOne(input)
          assert.strictEqual((yield* store.find(slug)).id, input.id)
        }))

      // ---- catalog: upserts ------------------------------------------------
      it.effect("a new product is created at version 1 with counters equal to its seed", () =>
        Effect.gen(function*() {
          const input = freshInput({ seed: { up: 7, down: 2 } })
          const outcome = yield* upsertOne(input)
          assert.strictEqual(outcome.status, "created")
          const p = yield* CatalogStore.use((s) => s.find(input.id))
          assert.deepStrictEqual([p.version, p.counters], [1, { up: 7, down: 2 }])
        }))

      it.effect("re-upserting the same input is unchanged: version and updated_at stay", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const input = freshInput()
          yield* store.upsert([input])
          const before = yield* store.find(input.id)
          yield* Effect.sleep("5 millis")
          const again = yield* store.upsert([input])
          assert.strictEqual(again[0]!.status, "unchanged")
          const after = yield* store.find(input.id)
          assert.strictEqual(after.version, before.version)
          assert.strictEqual(after.updatedAt.getTime(), before.updatedAt.getTime())
        }))

      it.effect("a content change bumps version and updated_at", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const input = freshInput()
          yield* store.upsert([input])
          const before = yield* store.find(input.id)
          yield* Effect.sleep("5 millis")
          const changed = { ...input, content: { ...input.content, ai_summary: `${input.content.ai_summary} Now with SSO.` } }
          assert.strictEqual((yield* store.upsert([changed]))[0]!.status, "updated")
          const after = yield* store.find(input.id)
          assert.strictEqual(after.version, before.version + 1)
          assert.isTrue(after.updatedAt.getTime() > before.updatedAt.getTime())
          assert.strictEqual(after.content.ai_summary, changed.content.ai_summary)
        }))

      it.effect("a seed change moves the counters by the difference and keeps live votes", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const ledger = yield* VoteLedger
          const input = freshInput({ seed: { up: 10, down: 5 } })
          yield* store.upsert([input])
          yield* ledger.cast({ entity: input.id, voter: "v1", direction: "up" })
          const outcome = yield* store.upsert([{ ...input, seed: { up: 12, down: 1 } }])
          assert.strictEqual(outcome[0]!.status, "updated")
          const p = yield* store.find(input.id)
          assert.deepStrictEqual(p.counters, { up: 13, down: 1 })
          assert.deepStrictEqual(p.seed, { up: 12, down: 1 })
        }))

      it.effect("a batch reports outcomes in input order", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const a = freshInput()
          const b = freshInput()
          yield* store.upsert([a, b])
          const c = freshInput()
          const changedB = { ...b, content: { ...b.content, key_features: ["Changed"] } }
          const outcomes = yield* store.upsert([c, a, changedB])
          assert.deepStrictEqual(outcomes.map((o) => [o.id, o.status]), [[c.id, "created"], [a.id, "unchanged"], [b.id, "updated"]])
        }))

      it.effect("a repeated id within one batch: the last one wins", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const a = freshInput()
          const a2 = { ...a, content: { ...a.content, ai_summary: "Second version." } }
          const outcomes = yield* store.upsert([a, a2])
          assert.deepStrictEqual(outcomes.map((o) => o.status), ["created", "updated"])
          const p = yield* store.find(a.id)
          assert.strictEqual(p.content.ai_summary, "Second version.")
          assert.strictEqual(p.version, 2)
        }))

      it.effect("preview tells what an upsert would do and writes nothing", () =>
        Effect.gen(function*() {
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
          assert.deepStrictEqual((yield* store.upsert(inputs)).map((o) => o.status), previewed)
        }))

      it.effect("an empty batch is a no-op", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          assert.deepStrictEqual(yield* store.upsert([]), [])
        }))

      // ---- slugs -------------------------------------------------------------
      it.effect("slugs come from the name, diacritics stripped", () =>
        Effect.gen(function*() {
          const tag = rng.uuid().slice(0, 8)
          const outcome = yield* upsertOne(freshInput({ name: `Crème Brûlée ${tag}` }))
          assert.strictEqual(outcome.slug, `creme-brulee-${tag}`)
        }))

      it.effect("colliding names get -2, -3", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const tag = rng.uuid().slice(0, 8)
          const outcomes = yield* store.upsert([
            freshInput({ name: `Pulse Board ${tag}` }),
            freshInput({ name: `pulse-board ${tag}!` })
          ])
          const third = yield* upsertOne(freshInput({ name: `PULSE BOARD ${tag}` }))
          assert.deepStrictEqual([...outcomes.map((o) => o.slug), third.slug], [
            `pulse-board-${tag}`,
            `pulse-board-${tag}-2`,
            `pulse-board-${tag}-3`
          ])
        }))

      it.effect("a requested slug is honoured", () =>
        Effect.gen(function*() {
          const slug = `chosen-${rng.uuid().slice(0, 8)}` as Slug
          assert.strictEqual((yield* upsertOne(freshInput({ slug }))).slug, slug)
        }))

      it.effect("the slug is kept on rename", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const input = freshInput()
          const { slug } = yield* upsertOne(input)
          const renamed = yield* upsertOne({ ...input, content: { ...input.content, name: "Entirely New Name" } })
          assert.strictEqual(renamed.slug, slug)
          assert.strictEqual((yield* store.find(slug)).content.name, "Entirely New Name")
        }))

      // ---- removal -----------------------------------------------------------
      it.effect("a removed product is ProductRemoved, and removal counts only live products", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const input = freshInput()
          const { slug } = yield* upsertOne(input)
          assert.strictEqual(yield* store.remove([input.id]), 1)
          assert.strictEqual(yield* store.remove([input.id]), 0)
          assert.strictEqual((yield* Effect.flip(store.find(input.id)))._tag, "ProductRemoved")
          assert.strictEqual((yield* Effect.flip(store.find(slug)))._tag, "ProductRemoved")
        }))

      it.effect("removed products leave listings and categories", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const category = uniqueCategory()
          const a = freshInput({ category })
          const b = freshInput({ category })
          yield* store.upsert([a, b])
          yield* store.remove([a.id])
          const page = yield* store.list({ category, sort: "name", limit: 10 })
          assert.deepStrictEqual(page.items.map((p) => p.id), [b.id])
          const categories = yield* store.categories
          assert.deepStrictEqual(categories.find((c) => c.category === category), { category, count: 1 })
        }))

      it.effect("upserting a removed product restores it", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const input = freshInput()
          yield* store.upsert([input])
          yield* store.remove([input.id])
          assert.strictEqual((yield* store.upsert([input]))[0]!.status, "updated")
          assert.isNull((yield* store.find(input.id)).removedAt)
        }))

      // ---- listing and search --------------------------------------------------
      it.effect("pages are stable: all pages together give every product once, in order", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const category = uniqueCategory()
          const inputs = Array.from({ length: 23 }, (_, i) => freshInput({ category, seed: { up: i % 5, down: i % 3 } }))
          yield* store.upsert(inputs)
          for (const sort of ["trust", "name", "updated"] as const) {
            const { items, pages } = yield* listAll({ category, sort, limit: 5 })
            assert.strictEqual(pages, 5)
            assert.strictEqual(new Set(items.map((p) => p.id)).size, 23)
            const single = yield* store.list({ category, sort, limit: 100 })
            assert.deepStrictEqual(items.map((p) => p.id), single.items.map((p) => p.id))
            assert.isNull(single.nextCursor)
          }
        }))

      it.effect("sort=trust orders by trust score, best first", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const category = uniqueCategory()
          const seeds = [{ up: 9, down: 1 }, { up: 90, down: 10 }, { up: 0, down: 0 }, { up: 1, down: 5 }, { up: 400, down: 3 }]
          yield* store.upsert(seeds.map((seed) => freshInput({ category, seed })))
          const page = yield* store.list({ category, sort: "trust", limit: 10 })
          const scores = page.items.map((p) => trustScore(p.counters))
          assert.deepStrictEqual(scores, [...scores].sort((a, b) => b - a))
          assert.deepStrictEqual(page.items[0]!.seed, { up: 400, down: 3 })
        }))

      it.effect("sort=name is case-insensitive A to Z", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const category = uniqueCategory()
          yield* store.upsert(["banana", "Apple", "cherry", "apricot"].map((name) => freshInput({ category, name: `${name} ${rng.uuid().slice(0, 4)}` })))
          const page = yield* store.list({ category, sort: "name", limit: 10 })
          assert.deepStrictEqual(page.items.map((p) => p.content.name.split(" ")[0]), ["Apple", "apricot", "banana", "cherry"])
        }))

      it.effect("sort=updated puts the latest change first", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const category = uniqueCategory()
          const a = freshInput({ category })
          const b = freshInput({ category })
          yield* store.upsert([a, b])
          yield* Effect.sleep("5 millis")
          yield* store.upsert([{ ...a, content: { ...a.content, ai_summary: "Changed." } }])
          const page = yield* store.list({ category, sort: "updated", limit: 10 })
          assert.strictEqual(page.items[0]!.id, a.id)
        }))

      it.effect("updated_since keeps only products changed since then", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const category = uniqueCategory()
          const a = freshInput({ category })
          yield* store.upsert([a])
          yield* Effect.sleep("20 millis")
          const since = new Date()
          yield* Effect.sleep("20 millis")
          const b = freshInput({ category })
          yield* store.upsert([b])
          const page = yield* store.list({ category, sort: "name", limit: 10, updatedSince: since })
          assert.deepStrictEqual(page.items.map((p) => p.id), [b.id])
        }))

      it.effect("search matches word prefixes, every word must match", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const word = `zq${rng.uuid().replace(/-/g, "").slice(0, 10)}`
          const second = `yk${rng.uuid().replace(/-/g, "").slice(0, 10)}`
          const hit = freshInput({ name: `Quokka ${word} ${second}` })
          const other = freshInput({ name: `Quokka ${word}x Metrics` })
          const miss = freshInput()
          yield* store.upsert([hit, other, miss])
          const byPrefix = yield* store.list({ q: word.slice(0, 8), sort: "name", limit: 10 })
          assert.deepStrictEqual(new Set(byPrefix.items.map((p) => p.id)), new Set([hit.id, other.id]))
          const both = yield* store.list({ q: `${word.toUpperCase()} ${second}`, sort: "name", limit: 10 })
          assert.deepStrictEqual(both.items.map((p) => p.id), [hit.id])
          const none = yield* store.list({ q: `${word} nonexistentword`, sort: "name", limit: 10 })
          assert.deepStrictEqual(none.items, [])
        }))

      it.effect("a cursor that is garbage, or from another sort, is InvalidCursor", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const category = uniqueCategory()
          yield* store.upsert([freshInput({ category }), freshInput({ category })])
          const page = yield* store.list({ category, sort: "name", limit: 1 })
          assert.isNotNull(page.nextCursor)
          const wrongSort = yield* Effect.flip(store.list({ category, sort: "trust", limit: 1, cursor: page.nextCursor! }))
          assert.strictEqual(wrongSort._tag, "InvalidCursor")
          const garbage = yield* Effect.flip(store.list({ sort: "name" as ListSort, limit: 1, cursor: "not-a-cursor!" }))
          assert.strictEqual(garbage._tag, "InvalidCursor")
        }))

      it.effect("categories count live products", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const category = uniqueCategory()
          yield* store.upsert([freshInput({ category }), freshInput({ category }), freshInput({ category })])
          const categories = yield* store.categories
          assert.deepStrictEqual(categories.find((c) => c.category === category), { category, count: 3 })
          const names = categories.map((c) => c.category)
          assert.deepStrictEqual(names, [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
        }))

      it.effect("scan yields every live product once, absentFrom what a keep-set lacks", () =>
        Effect.gen(function*() {
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
        }))

      it.effect("ping answers", () => CatalogStore.use((s) => s.ping))

      // ---- votes ---------------------------------------------------------------
      it.effect("a first vote is recorded and counted", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const input = freshInput({ seed: { up: 2, down: 2 } })
          yield* upsertOne(input)
          const result = yield* ledger.cast({ entity: input.id, voter: "alice", direction: "up" })
          assert.strictEqual(result.status, "recorded")
          assert.deepStrictEqual(result.counters, { up: 3, down: 2 })
          assert.deepStrictEqual(toTrust(result.counters), { trust_score: 23, trust_up: 3, trust_down: 2, trust_ratio: 0.6, evaluation_count: 5 })
          assert.deepStrictEqual((yield* CatalogStore.use((s) => s.find(input.id))).counters, { up: 3, down: 2 })
        }))

      it.effect("the same vote again is unchanged", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const input = freshInput()
          yield* upsertOne(input)
          yield* ledger.cast({ entity: input.id, voter: "bob", direction: "down" })
          const again = yield* ledger.cast({ entity: input.id, voter: "bob", direction: "down" })
          assert.strictEqual(again.status, "unchanged")
          assert.deepStrictEqual(again.counters, { up: 0, down: 1 })
        }))

      it.effect("a switched vote moves one count", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const input = freshInput()
          yield* upsertOne(input)
          yield* ledger.cast({ entity: input.id, voter: "carol", direction: "up" })
          const moved = yield* ledger.cast({ entity: input.id, voter: "carol", direction: "down" })
          assert.strictEqual(moved.status, "changed")
          assert.deepStrictEqual(moved.counters, { up: 0, down: 1 })
        }))

      it.effect("a vote by slug counts for the product", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const input = freshInput()
          const { slug } = yield* upsertOne(input)
          const result = yield* ledger.cast({ entity: slug, voter: "dave", direction: "up" })
          assert.strictEqual(result.product.id, input.id)
          assert.deepStrictEqual(result.counters, { up: 1, down: 0 })
        }))

      it.effect("a vote for an unknown or removed product fails and counts nothing", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const store = yield* CatalogStore
          const unknown = yield* Effect.flip(ledger.cast({ entity: "00000000-0000-4000-8000-000000000000", voter: "x", direction: "up" }))
          assert.strictEqual(unknown._tag, "ProductNotFound")
          const input = freshInput()
          yield* store.upsert([input])
          yield* store.remove([input.id])
          const removed = yield* Effect.flip(ledger.cast({ entity: input.id, voter: "x", direction: "up" }))
          assert.strictEqual(removed._tag, "ProductRemoved")
          yield* store.upsert([input])
          assert.deepStrictEqual((yield* store.find(input.id)).counters, { up: 0, down: 0 })
        }))

      it.effect("1,000 concurrent votes from distinct voters are counted exactly", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const input = freshInput({ seed: { up: 5, down: 5 } })
          yield* upsertOne(input)
          const results = yield* Effect.forEach(
            Array.from({ length: 1000 }, (_, i) => i),
            (i) => ledger.cast({ entity: input.id, voter: `voter-${i}`, direction: i % 4 === 0 ? "down" : "up" }),
            { concurrency: "unbounded" }
          )
          assert.isTrue(results.every((r) => r.status === "recorded"))
          const p = yield* CatalogStore.use((s) => s.find(input.id))
          assert.deepStrictEqual(p.counters, { up: 5 + 750, down: 5 + 250 })
        }), 120_000)

      it.effect("concurrent identical votes by one voter count once", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const input = freshInput()
          yield* upsertOne(input)
          const results = yield* Effect.forEach(Array.from({ length: 50 }), () =>
            ledger.cast({ entity: input.id, voter: "eve", direction: "up" }), { concurrency: "unbounded" })
          assert.strictEqual(results.filter((r) => r.status === "recorded").length, 1)
          const p = yield* CatalogStore.use((s) => s.find(input.id))
          assert.deepStrictEqual(p.counters, { up: 1, down: 0 })
        }))

      it.effect("votes leave version and updated_at alone", () =>
        Effect.gen(function*() {
          const store = yield* CatalogStore
          const ledger = yield* VoteLedger
          const input = freshInput()
          yield* store.upsert([input])
          const before = yield* store.find(input.id)
          yield* ledger.cast({ entity: input.id, voter: "frank", direction: "up" })
          const after = yield* store.find(input.id)
          assert.deepStrictEqual([after.version, after.updatedAt.getTime()], [before.version, before.updatedAt.getTime()])
        }))

      // ---- problems -------------------------------------------------------------
      it.effect("down votes with a reason report a problem, normalised and counted per voter", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const problems = yield* ProblemStore
          const base = freshInput()
          const input = { ...base, content: { ...base.content, not_recommended_for: ["Air-gapped installs"], problems: ["Slow exports"] } }
          yield* upsertOne(input)
          yield* ledger.cast({ entity: input.id, voter: "g1", direction: "down", reason: "No SSO on the Team plan" })
          yield* ledger.cast({ entity: input.id, voter: "g2", direction: "down", reason: "  no sso ON the   team plan " })
          yield* ledger.cast({ entity: input.id, voter: "g2", direction: "down", reason: "no sso on the team plan" })
          yield* ledger.cast({ entity: input.id, voter: "g3", direction: "down", reason: "Slow exports" })
          yield* ledger.cast({ entity: input.id, voter: "g4", direction: "down" })
          const reported = yield* problems.reported(input.id)
          const byKey = Object.fromEntries(reported.map((r) => [r.key, r]))
          assert.strictEqual(reported.length, 2)
          assert.strictEqual(byKey["no sso on the team plan"]!.reports, 2)
          assert.strictEqual(byKey["no sso on the team plan"]!.summary, "No SSO on the Team plan")
          assert.strictEqual(byKey["slow exports"]!.reports, 1)
          const product = yield* CatalogStore.use((s) => s.find(input.id))
          const list = problemsOf(product, reported)
          // "Slow exports" is also a catalog problem: the community report counts toward it.
          assert.deepStrictEqual(list.map((p) => [p.summary, p.kind, p.reports]), [
            ["No SSO on the Team plan", "reported", 2],
            ["Slow exports", "limitation", 1],
            ["Air-gapped installs", "limitation", 0]
          ])
        }))

      it.effect("switching to up withdraws the voter's reports", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const problems = yield* ProblemStore
          const input = freshInput()
          yield* upsertOne(input)
          yield* ledger.cast({ entity: input.id, voter: "h1", direction: "down", reason: "Buggy sync" })
          yield* ledger.cast({ entity: input.id, voter: "h2", direction: "down", reason: "Buggy sync" })
          yield* ledger.cast({ entity: input.id, voter: "h1", direction: "up" })
          const reported = yield* problems.reported(input.id)
          assert.deepStrictEqual(reported.map((r) => [r.key, r.reports]), [["buggy sync", 1]])
        }))

      // ---- reconciliation ----------------------------------------------------------
      it.effect("snapshots show seed, stored counters and the ledger's tally", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const input = freshInput({ seed: { up: 4, down: 1 } })
          yield* upsertOne(input)
          yield* ledger.cast({ entity: input.id, voter: "i1", direction: "up" })
          yield* ledger.cast({ entity: input.id, voter: "i2", direction: "down" })
          const batches = yield* Stream.runCollect(ledger.snapshots(50))
          assert.isTrue(batches.every((b) => b.length > 0 && b.length <= 50))
          const mine = batches.flat().find((s) => s.id === input.id)
          assert.deepStrictEqual(mine, { id: input.id, seed: { up: 4, down: 1 }, stored: { up: 5, down: 2 }, ledger: { up: 1, down: 1 } })
        }))

      it.effect("repair recounts drifted products from seed + ledger and leaves the rest", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const backdoor = yield* Backdoor
          const store = yield* CatalogStore
          const a = freshInput({ seed: { up: 2, down: 0 } })
          const b = freshInput()
          const c = freshInput()
          yield* store.upsert([a, b, c])
          yield* ledger.cast({ entity: a.id, voter: "j1", direction: "up" })
          yield* backdoor.setCounters(a.id, { up: 99, down: 7 })
          yield* backdoor.insertVote(b.id, "ghost", "down")
          const snapshotOf = (ids: ReadonlyArray<ProductId>) =>
            Effect.map(Stream.runCollect(ledger.snapshots(1000)), (batches) => batches.flat().filter((s) => ids.includes(s.id)))
          const repairs = yield* ledger.repair(yield* snapshotOf([a.id, b.id, c.id]))
          assert.deepStrictEqual(
            [...repairs].sort((x, y) => (x.id < y.id ? -1 : 1)),
            [
              { id: a.id, before: { up: 99, down: 7 }, after: { up: 3, down: 0 } },
              { id: b.id, before: { up: 0, down: 0 }, after: { up: 0, down: 1 } }
            ].sort((x, y) => (x.id < y.id ? -1 : 1))
          )
          assert.deepStrictEqual(yield* ledger.repair(yield* snapshotOf([a.id, b.id, c.id])), [])
          assert.deepStrictEqual((yield* store.find(a.id)).counters, { up: 3, down: 0 })
        }))

      it.effect("votes cast while repairs run are never lost", () =>
        Effect.gen(function*() {
          const ledger = yield* VoteLedger
          const backdoor = yield* Backdoor
          const input = freshInput()
          yield* upsertOne(input)
          yield* backdoor.setCounters(input.id, { up: 50, down: 50 })
          yield* Effect.all([
            Effect.forEach(Array.from({ length: 200 }, (_, i) => i), (i) =>
              ledger.cast({ entity: input.id, voter: `k${i}`, direction: "up" }), { concurrency: 20 }),
            // Repairs from snapshots that go stale while votes land: compare-and-set fails, the recount runs.
            Effect.forEach(Array.from({ length: 20 }), () =>
              Effect.flatMap(Stream.runCollect(ledger.snapshots(1000)), (batches) =>
                ledger.repair(batches.flat().filter((s) => s.id === input.id).map((s) => ({ ...s, stored: { up: 50, down: 50 } })))), { concurrency: 2 })
          ], { concurrency: "unbounded" })
          const final = (yield* Stream.runCollect(ledger.snapshots(1000))).flat().filter((s) => s.id === input.id)
          yield* ledger.repair(final)
          const p = yield* CatalogStore.use((s) => s.find(input.id))
          assert.deepStrictEqual(p.counters, { up: 200, down: 0 })
        }), 120_000)

      // ---- settings ---------------------------------------------------------------
      it.effect("a setting keeps its first value", () =>
        Effect.gen(function*() {
          const settings = yield* Settings
          const key = `contract-${rng.uuid()}`
          assert.strictEqual(yield* settings.getOrInit(key, "first"), "first")
          assert.strictEqual(yield* settings.getOrInit(key, "second"), "first")
        }))

      // ---- job lock ---------------------------------------------------------------
      it.effect("the job lock lets one holder in and tells the other it is busy", () =>
        Effect.gen(function*() {
          const lock = yield* JobLock
          const name = `contract-${rng.uuid()}`
          const inner = yield* lock.withLock(name, { wait: false }, lock.withLock(name, { wait: false }, Effect.succeed("inner")))
          assert.deepStrictEqual(inner, { _tag: "Ran", value: { _tag: "Busy" } })
          const again = yield* lock.withLock(name, { wait: true }, Effect.succeed(42))
          assert.deepStrictEqual(again, { _tag: "Ran", value: 42 })
          const failed = yield* Effect.exit(lock.withLock(name, { wait: false }, Effect.fail("boom")))
          assert.isTrue(Exit.isFailure(failed))
          assert.deepStrictEqual(yield* lock.withLock(name, { wait: false }, Effect.succeed(1)), { _tag: "Ran", value: 1 })
        }))
    })
  })
