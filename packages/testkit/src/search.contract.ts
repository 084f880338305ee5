/**
 * Search finds what an agent means (packages/domain/src/record/search.ts), the same on
 * every store: stems, folded accents, prefixes, typos, several words, category
 * words; ranked by relevance; categories filtered whatever their case.
 * Each behaviour searches for made-up words of its own, so the products other
 * behaviours add never match.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { CatalogStore, DESCRIPTION_FIELD_LIMIT, describeProduct, type ListQuery, type ProductId } from "@productdir/domain"
import { freshInput, listAll, madeUpWord, uniqueCategory } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

const ids = (query: Omit<ListQuery, "limit" | "sort"> & Partial<Pick<ListQuery, "sort">>) =>
  CatalogStore.use((store) => store.list({ sort: "relevance", limit: 20, ...query })).pipe(
    Effect.map((page) => page.items.map((p) => p.id))
  )

export const searchBehaviours = (it: ContractIt) => {
  it.effect("describe: what a search answer reads of each product, by the domain's rule, each field bounded", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const plain = freshInput()
      // Text past the bound in each kind of field: a long text (in letters beyond one UTF-16 unit too), and arrays.
      const long = freshInput({
        summary: "𝔞é".repeat(DESCRIPTION_FIELD_LIMIT),
        features: Array.from({ length: 40 }, (_, i) => `feature ${i} `.repeat(20))
      })
      const gone = freshInput()
      yield* store.upsert([plain, long, gone])
      yield* store.remove([gone.id])
      const described = yield* store.describe([long.id, plain.id, gone.id, "00000000-0000-4000-8000-000000000000" as ProductId])
      const byId = new Map(described.map((d) => [d.id, d]))
      assert.sameMembers([...byId.keys()], [plain.id, long.id])
      assert.deepStrictEqual(byId.get(plain.id), describeProduct(plain.id, plain.content))
      assert.deepStrictEqual(byId.get(long.id), describeProduct(long.id, long.content))
      assert.strictEqual([...byId.get(long.id)!.summary].length, DESCRIPTION_FIELD_LIMIT)
      assert.deepStrictEqual(yield* store.describe([]), [])
    })
  )

  it.effect("a word finds its other forms: plurals and -ing forms share a stem", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const base = madeUpWord()
      const plural = freshInput({ summary: `Sends ${base}s to customers.` })
      const gerund = freshInput({ summary: `Automated ${base}ing for teams.` })
      yield* store.upsert([plural, gerund])
      assert.sameMembers(yield* ids({ q: `${base}ing` }), [plural.id, gerund.id])
      assert.sameMembers(yield* ids({ q: `${base}s` }), [plural.id, gerund.id])
    })
  )

  it.effect("accents and case are folded on both sides", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const word = madeUpWord()
      const spanish = freshInput({ name: `Ñ${word}ú Ledger` })
      const danish = freshInput({ name: `Ø${word} Books` })
      yield* store.upsert([spanish, danish])
      assert.deepStrictEqual(yield* ids({ q: `n${word}u` }), [spanish.id])
      assert.deepStrictEqual(yield* ids({ q: `O${word.toUpperCase()}` }), [danish.id])
      assert.deepStrictEqual(yield* ids({ q: `Ñ${word}Ú` }), [spanish.id])
    })
  )

  it.effect("the start of a word finds the word being typed", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const word = madeUpWord(5)
      const product = freshInput({ name: `${word[0]!.toUpperCase()}${word.slice(1)}ly` })
      yield* store.upsert([product])
      assert.deepStrictEqual(yield* ids({ q: word.slice(0, 5) }), [product.id])
      assert.deepStrictEqual(yield* ids({ q: word.slice(0, 8) }), [product.id])
    })
  )

  it.effect("one typo in a name or a distinctive word still finds it", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const name = madeUpWord(4)
      const feature = madeUpWord(4)
      const named = freshInput({ name: `${name} Suite` })
      const featured = freshInput({ features: [`Built-in ${feature} engine`] })
      yield* store.upsert([named, featured])
      const swapped = `${name.slice(0, 3)}${name[4]}${name[3]}${name.slice(5)}`
      const wrongLetter = `${feature.slice(0, 4)}${feature[4] === "x" ? "y" : "x"}${feature.slice(5)}`
      const missing = `${name.slice(0, 5)}${name.slice(6)}`
      assert.deepStrictEqual(yield* ids({ q: swapped }), [named.id])
      assert.deepStrictEqual(yield* ids({ q: wrongLetter }), [featured.id])
      assert.deepStrictEqual(yield* ids({ q: missing }), [named.id])
    })
  )

  it.effect("several words: the product with all of them first; an unknown word takes nothing away", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const first = madeUpWord()
      const second = madeUpWord()
      const both = freshInput({ summary: `${first} and ${second} in one place.` })
      const one = freshInput({ summary: `Only ${first} here.` })
      const other = freshInput({ summary: `Only ${second} here.` })
      yield* store.upsert([one, other, both])
      const found = yield* ids({ q: `${first} ${second}` })
      assert.strictEqual(found[0], both.id)
      assert.sameMembers(found, [both.id, one.id, other.id])
      assert.sameMembers(yield* ids({ q: `${first} ${madeUpWord()}` }), [both.id, one.id])
    })
  )

  it.effect("more of the words before a weightier field: all of them in a summary above one of them in a name", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const first = madeUpWord()
      const second = madeUpWord()
      const third = madeUpWord()
      const named = freshInput({ name: `${third} Pro`, seed: { up: 90, down: 0 } })
      const all = freshInput({ summary: `A ${first} with ${second} for ${third}.`, seed: { up: 0, down: 9 } })
      const two = freshInput({ name: `${first} Works`, summary: `Also ${second}.` })
      yield* store.upsert([named, all, two])
      assert.deepStrictEqual(yield* ids({ q: `${first} ${second} for ${third}` }), [all.id, two.id, named.id])
    })
  )

  it.effect("a typo is not read as a stop word: it adds no word to a product that has one", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const word = madeUpWord()
      const named = freshInput({ name: `${word} Desk` })
      const theirs = freshInput({ summary: `${word} for their teams, their way.` })
      yield* store.upsert([named, theirs])
      // "thier" is one typo from "their", a stop word: searched, it would count a second word for `theirs`.
      const found = yield* ids({ q: `${word} thier` })
      assert.strictEqual(found[0], named.id)
      assert.include(found, theirs.id)
    })
  )

  it.effect("a category's words find its products", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const word = madeUpWord()
      const product = freshInput({ category: `${word} Tools` })
      yield* store.upsert([product])
      assert.deepStrictEqual(yield* ids({ q: word }), [product.id])
    })
  )

  it.effect("relevance: a name match above a mention, a product about the topic above one in passing", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const topic = madeUpWord()
      const passing = freshInput({ features: [`Exports to ${topic} among forty other formats`], seed: { up: 90, down: 0 } })
      const about = freshInput({
        summary: `${topic} for small firms: ${topic} made simple.`,
        features: [`${topic} templates`, `Recurring ${topic}s`, `${topic} reminders`],
        seed: { up: 1, down: 5 }
      })
      const named = freshInput({ name: `${topic} Pro`, seed: { up: 0, down: 9 } })
      yield* store.upsert([passing, about, named])
      assert.deepStrictEqual(yield* ids({ q: topic }), [named.id, about.id, passing.id])
      // Another order still finds the same products.
      assert.deepStrictEqual(yield* ids({ q: topic, sort: "trust" }), [passing.id, about.id, named.id])
    })
  )

  it.effect("relevance pages are stable: all pages together give every match once, in order", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const topic = madeUpWord()
      const inputs = Array.from({ length: 13 }, (_, i) =>
        freshInput({
          summary: `${Array.from({ length: (i % 4) + 1 }, () => topic).join(" ")} tools.`,
          seed: { up: i % 3, down: 0 }
        })
      )
      yield* store.upsert(inputs)
      const { items, pages } = yield* listAll({ q: topic, sort: "relevance", limit: 4 })
      assert.strictEqual(pages, 4)
      const single = yield* store.list({ q: topic, sort: "relevance", limit: 100 })
      assert.deepStrictEqual(
        items.map((p) => p.id),
        single.items.map((p) => p.id)
      )
      assert.strictEqual(new Set(items.map((p) => p.id)).size, 13)
    })
  )

  it.effect("a category filter ignores case", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const category = uniqueCategory()
      const product = freshInput({ category })
      yield* store.upsert([product])
      assert.deepStrictEqual(yield* ids({ category: category.toUpperCase() }), [product.id])
      assert.deepStrictEqual(yield* ids({ category: category.toLowerCase() }), [product.id])
    })
  )

  it.effect("slugs by prefix: live products only, A to Z, any case, bounded", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const word = madeUpWord()
      const inputs = ["Beta", "Alpha", "Gamma"].map((suffix) => freshInput({ name: `${word} ${suffix}` }))
      const outcomes = yield* store.upsert(inputs)
      const slugs = outcomes.map((o) => o.slug).sort()
      assert.deepStrictEqual(yield* store.slugsStartingWith(word.toUpperCase(), 10), slugs)
      assert.deepStrictEqual(yield* store.slugsStartingWith(word, 2), slugs.slice(0, 2))
      yield* store.remove([outcomes[0]!.id])
      assert.notInclude(yield* store.slugsStartingWith(word, 10), outcomes[0]!.slug)
      assert.deepStrictEqual(yield* store.slugsStartingWith(`${word}zzzz`, 10), [])
    })
  )
}
