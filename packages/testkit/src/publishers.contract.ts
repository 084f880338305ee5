/**
 * Publishers (docs/decisions.md, "Publishers") on every store: a claim kept pending; a proof makes it the verified
 * publisher of its domain, findable by its key's hash; a domain has one verified publisher, and a second proof of it
 * earns nothing.
 */
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { AuditTrail, CatalogStore, ProblemStore, type Publisher, type PublisherId, PublisherStore } from "@productdir/domain"
import { freshInput } from "./inputs.ts"
import type { ProductId } from "@productdir/domain"
import type { ContractIt } from "./contractIt.ts"

let counter = 0
const claimOf = (domain: string): Publisher => ({
  id: randomUUID() as PublisherId,
  domain,
  status: "pending",
  token: `token-${++counter}`,
  method: null,
  keyHash: null,
  createdAt: new Date(1_700_000_000_000),
  verifiedAt: null,
  failedChecks: 0,
  checkedAt: null,
  checkNote: null,
  suspendedAt: null
})

export const publishersBehaviours = (it: ContractIt) => {
  it.effect("a claim is kept pending; its proof makes it the domain's one verified publisher, found by its key", () =>
    Effect.gen(function* () {
      const store = yield* PublisherStore
      const domain = `vendor-${randomUUID().slice(0, 8)}.example`
      const first = yield* store.claim(claimOf(domain))
      const second = yield* store.claim(claimOf(domain))
      assert.deepStrictEqual(Option.getOrUndefined(yield* store.find(first.id)), first)
      assert.isTrue(Option.isNone(yield* store.verifiedFor(domain)))

      const at = new Date(1_700_000_060_000)
      const verified = Option.getOrThrow(yield* store.verify(first.id, { method: "dns", keyHash: `hash-${first.id}`, at }))
      assert.deepStrictEqual(verified, { ...first, status: "verified", method: "dns", keyHash: `hash-${first.id}`, verifiedAt: at })
      assert.deepStrictEqual(Option.getOrUndefined(yield* store.verifiedFor(domain)), verified)
      assert.deepStrictEqual(Option.getOrUndefined(yield* store.byKeyHash(`hash-${first.id}`)), verified)

      // The domain is taken: the other claim's proof earns nothing, and a claim is proven once.
      assert.isTrue(Option.isNone(yield* store.verify(second.id, { method: "http", keyHash: `hash-${second.id}`, at })))
      assert.isTrue(Option.isNone(yield* store.verify(first.id, { method: "http", keyHash: "another", at })))
      assert.isTrue(Option.isNone(yield* store.byKeyHash(`hash-${second.id}`)))
      assert.strictEqual(Option.getOrThrow(yield* store.find(second.id)).status, "pending")
      assert.isTrue(Option.isNone(yield* store.find(randomUUID() as PublisherId)))
    })
  )

  it.effect("a publisher's replies: one per problem of a product, a later one in its place, each product its own", () =>
    Effect.gen(function* () {
      const problems = yield* ProblemStore
      const [a, b] = [freshInput(), freshInput()]
      yield* CatalogStore.use((catalog) => catalog.upsert([a, b]))
      const reply = (problemId: string, text: string, at: number) => ({
        problemId,
        text,
        domain: "vendor.example",
        fixedInVersion: at === 2 ? 1 : null,
        repliedAt: new Date(1_700_000_000_000 + at * 1000)
      })
      yield* problems.reply(a.id, reply("lim-2", "Second problem, answered.", 1))
      yield* problems.reply(a.id, reply("lim-1", "First words.", 1))
      yield* problems.reply(a.id, reply("lim-1", "Fixed in version 1.", 2))
      yield* problems.reply(b.id, reply("lim-1", "Another product's.", 1))
      assert.deepStrictEqual(yield* problems.replies(a.id), [
        reply("lim-1", "Fixed in version 1.", 2),
        reply("lim-2", "Second problem, answered.", 1)
      ])
      assert.deepStrictEqual(yield* problems.replies(b.id), [reply("lim-1", "Another product's.", 1)])
    })
  )

  it.effect("an operator suspends a verified publisher and restores it; the list has every claim, oldest first", () =>
    Effect.gen(function* () {
      const store = yield* PublisherStore
      const claim = yield* store.claim(claimOf(`operated-${randomUUID().slice(0, 8)}.example`))
      const at = new Date(1_700_000_900_000)
      assert.isTrue(Option.isNone(yield* store.setStatus(claim.id, { to: "suspended", at, note: "pending: nothing to suspend" })))
      yield* store.verify(claim.id, { method: "dns", keyHash: `hash-${claim.id}`, at })
      const suspended = Option.getOrThrow(yield* store.setStatus(claim.id, { to: "suspended", at, note: "malware report" }))
      assert.deepStrictEqual([suspended.status, suspended.checkNote, suspended.suspendedAt], ["suspended", "malware report", at])
      assert.isTrue(Option.isNone(yield* store.byKeyHash(`hash-${claim.id}`)))
      const restored = Option.getOrThrow(yield* store.setStatus(claim.id, { to: "verified", at, note: "reviewed" }))
      assert.deepStrictEqual([restored.status, restored.failedChecks, restored.suspendedAt], ["verified", 0, null])
      assert.isTrue(Option.isSome(yield* store.byKeyHash(`hash-${claim.id}`)))
      const listed = yield* store.list
      assert.isTrue(listed.some((p) => p.id === claim.id))
      const times = listed.map((p) => p.createdAt.getTime())
      assert.deepStrictEqual(
        times,
        [...times].sort((a, b) => a - b)
      )
    })
  )

  it.effect("an operator's takedown: 410 with its reason; brought back, or imported again, it is live and the reason gone", () =>
    Effect.gen(function* () {
      const catalog = yield* CatalogStore
      const input = freshInput()
      yield* catalog.upsert([input])
      const reasonOf = Effect.map(Effect.flip(catalog.find(input.id)), (e) => (e._tag === "ProductRemoved" ? e.reason : e._tag))
      assert.isTrue(yield* catalog.takeDown(input.id, "malware reported, confirmed"))
      assert.strictEqual(yield* reasonOf, "malware reported, confirmed")
      assert.isFalse(yield* catalog.takeDown(input.id, "again"))
      assert.strictEqual(yield* reasonOf, "malware reported, confirmed")
      assert.isTrue(yield* catalog.bringBack(input.id))
      assert.strictEqual((yield* catalog.find(input.id)).id, input.id)
      assert.isFalse(yield* catalog.bringBack(input.id))
      // Taken down, then imported again: live, and no reason stays for a later prune to show.
      yield* catalog.takeDown(input.id, "second report")
      yield* catalog.upsert([input])
      yield* catalog.remove([input.id])
      assert.isUndefined(yield* reasonOf)
      const unknown = yield* Effect.flip(catalog.takeDown("00000000-0000-4000-8000-00000000beef" as ProductId, "x"))
      assert.strictEqual(unknown._tag, "ProductNotFound")
    })
  )

  it.effect("an import that writes over a publisher's change says whose it was; the next one has nothing to say", () =>
    Effect.gen(function* () {
      const catalog = yield* CatalogStore
      const input = freshInput()
      yield* catalog.upsert([input])
      const edited = yield* catalog.edit(
        { ...input, content: { ...input.content, ai_summary: "The vendor's words." } },
        1,
        "vendor.example"
      )
      assert.strictEqual(edited.version, 2)
      // The same input again: the record differs from the publisher's, so the import writes over it and says so.
      const [over] = yield* catalog.upsert([input])
      assert.deepStrictEqual([over?.status, over?.overwrote], ["updated", "vendor.example"])
      assert.strictEqual((yield* catalog.version(input.id, 2)).version.content.ai_summary, "The vendor's words.")
      const [next] = yield* catalog.upsert([{ ...input, content: { ...input.content, ai_summary: "The operator's words." } }])
      assert.deepStrictEqual([next?.status, next?.overwrote], ["updated", undefined])
      const stale = yield* Effect.flip(catalog.edit(input, 1, "vendor.example"))
      assert.strictEqual(stale._tag, "VersionConflict")
    })
  )

  it.effect("the audit trail: appended, read newest first, of one subject or all", () =>
    Effect.gen(function* () {
      const trail = yield* AuditTrail
      const subject = `publisher:${randomUUID()}`
      const entry = (n: number) => ({
        at: new Date(1_700_001_000_000 + n),
        actor: n === 1 ? ({ kind: "publisher", domain: "vendor.example" } as const) : ({ kind: "operator" } as const),
        action: n === 1 ? ("verify" as const) : ("suspend" as const),
        subject,
        reason: n === 1 ? null : "why not",
        detail: `entry ${n}`
      })
      yield* trail.record(entry(1))
      yield* trail.record(entry(2))
      yield* trail.record({ ...entry(3), subject: "product:elsewhere" })
      assert.deepStrictEqual(yield* trail.list({ subject, limit: 10 }), [entry(2), entry(1)])
      assert.deepStrictEqual(yield* trail.list({ subject, limit: 1 }), [entry(2)])
      assert.deepStrictEqual((yield* trail.list({ subject: undefined, limit: 1 }))[0]?.detail, "entry 3")
    })
  )

  it.effect("checks of a verified publisher: a miss counts, a find resets, misses in a row suspend it and its key", () =>
    Effect.gen(function* () {
      const store = yield* PublisherStore
      const claim = yield* store.claim(claimOf(`checked-${randomUUID().slice(0, 8)}.example`))
      const hash = `hash-${claim.id}`
      yield* store.verify(claim.id, { method: "http", keyHash: hash, at: new Date(1_700_000_100_000) })
      const due = (at: number) => Effect.map(store.due(new Date(at), 10_000), (ps) => ps.some((p) => p.id === claim.id))
      // Due once its proof is older than the round's bound.
      assert.isFalse(yield* due(1_700_000_100_000))
      assert.isTrue(yield* due(1_700_000_100_001))
      const check = (at: number, note: string | null) =>
        Effect.map(store.recordCheck(claim.id, { at: new Date(at), note, suspendAfter: 3 }), Option.getOrUndefined)
      assert.strictEqual((yield* check(1_700_000_200_000, "gone"))?.failedChecks, 1)
      assert.isFalse(yield* due(1_700_000_200_000))
      assert.deepStrictEqual(yield* check(1_700_000_300_000, null), {
        ...(yield* store.find(claim.id)).pipe(Option.getOrThrow),
        failedChecks: 0,
        checkNote: null
      })
      yield* check(1_700_000_400_000, "gone")
      yield* check(1_700_000_500_000, "gone")
      const third = yield* check(1_700_000_600_000, "still gone")
      assert.deepStrictEqual(
        [third?.status, third?.failedChecks, third?.checkNote, third?.suspendedAt?.getTime()],
        ["suspended", 3, "still gone", 1_700_000_600_000]
      )
      assert.isTrue(Option.isNone(yield* store.byKeyHash(hash)))
      assert.isFalse(yield* due(1_800_000_000_000))
      assert.isUndefined(yield* check(1_700_000_700_000, null))
    })
  )
}
