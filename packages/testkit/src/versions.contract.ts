/**
 * Versions (docs/decisions.md, "Versions"): every change of a product keeps the version it replaced, exactly as it
 * was, on every store; an upsert that changes nothing keeps nothing; a page of versions is newest first.
 */
import { assert } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { CatalogStore } from "@productdir/domain"
import { freshInput } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

const ALL = { before: undefined, limit: 100 }

export const versionsBehaviours = (it: ContractIt) => {
  it.effect("each change keeps the version it replaced, as it was; an unchanged upsert keeps none", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const first = freshInput({ seed: { up: 2, down: 1 } })
      yield* store.upsert([first])
      const v1 = yield* store.find(first.id)
      yield* TestClock.adjust("1 minute")
      const second = { ...first, content: { ...first.content, ai_summary: "Second words, as the vendor put them." } }
      yield* store.upsert([second])
      const v2 = yield* store.find(first.id)
      yield* TestClock.adjust("1 minute")
      // Seed counts alone make a version too: the record changed.
      yield* store.upsert([{ ...second, seed: { up: 5, down: 1 } }])
      yield* TestClock.adjust("1 minute")
      yield* store.upsert([{ ...second, seed: { up: 5, down: 1 } }])
      const v3 = yield* store.find(first.id)
      assert.strictEqual(v3.version, 3)

      const history = yield* store.versions(first.id, ALL)
      assert.deepStrictEqual(history.product.version, 3)
      assert.deepStrictEqual(
        history.versions.map((v) => [v.version, v.updatedAt.getTime(), v.supersededAt?.getTime() ?? null]),
        [
          [3, v3.updatedAt.getTime(), null],
          [2, v2.updatedAt.getTime(), v3.updatedAt.getTime()],
          [1, v1.updatedAt.getTime(), v2.updatedAt.getTime()]
        ]
      )
      const one = yield* store.version(first.id, 1)
      assert.deepStrictEqual(one.version.content, first.content)
      assert.deepStrictEqual(one.version.updatedAt, v1.updatedAt)
      assert.deepStrictEqual((yield* store.version(first.id, 2)).version.content, second.content)
      const current = yield* store.version(v3.slug, 3)
      assert.deepStrictEqual([current.version.content, current.version.supersededAt], [v3.content, null])
      // A version it never had: refused, naming what it has.
      const none = yield* Effect.exit(store.version(first.id, 4))
      assert.isTrue(Exit.isFailure(none))
      assert.match(String(Exit.isFailure(none) ? none.cause : ""), /VersionNotFound/)
    })
  )

  it.effect("a page of versions is newest first, and the next starts before its last", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const input = freshInput()
      for (let i = 1; i <= 5; i++) {
        yield* store.upsert([{ ...input, content: { ...input.content, ai_summary: `Words of version ${i}.` } }])
        yield* TestClock.adjust("1 second")
      }
      const page = (before: number | undefined) =>
        Effect.map(store.versions(input.id, { before, limit: 2 }), (h) => h.versions.map((v) => v.version))
      assert.deepStrictEqual(yield* page(undefined), [5, 4])
      assert.deepStrictEqual(yield* page(4), [3, 2])
      assert.deepStrictEqual(yield* page(2), [1])
      assert.deepStrictEqual(yield* page(1), [])
      assert.strictEqual((yield* store.version(input.id, 3)).version.content.ai_summary, "Words of version 3.")
    })
  )

  it.effect("a removed product's versions are gone with it; restored, it goes on from the version it had", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const input = freshInput()
      yield* store.upsert([input])
      yield* store.remove([input.id])
      const gone = yield* Effect.exit(store.versions(input.id, ALL))
      assert.match(String(Exit.isFailure(gone) ? gone.cause : ""), /ProductRemoved/)
      yield* TestClock.adjust("1 second")
      yield* store.upsert([input])
      const history = yield* store.versions(input.id, ALL)
      assert.deepStrictEqual(
        history.versions.map((v) => v.version),
        [2, 1]
      )
      assert.deepStrictEqual((yield* store.version(input.id, 1)).version.content, input.content)
    })
  )
}
