/**
 * The read cache's parts, in process: the byte-budgeted entries, the change epochs, and the cache
 * they make with single-flight loads and refresh ahead, over a load that takes the time the test
 * says (TestClock). read-cache.test.ts holds the whole to its promises across real processes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger, Ref } from "effect"
import { TestClock } from "effect/testing"
import { everythingChanged, ProductNotFound, type ProductId, productsChanged } from "@productdir/domain"
import { Freshness } from "@productdir/read-cache/freshness"
import { ByteBudgetLru } from "@productdir/read-cache/lru"
import { ProductReads } from "@productdir/read-cache/productReads"
import { ENTRY_OVERHEAD_BYTES, make } from "@productdir/read-cache/ReadCache"
import { keyOfRequest, readKey, readOfRequest } from "@productdir/read-cache/readKeys"
import { MIN_INTERVAL_MS } from "@productdir/read-cache/refreshAhead"
import { prepareFast } from "@productdir/edge/responses/preparedResponse"

const A = "0b7f3c8e-3b52-4c8e-9d0a-6f1f2d3c4b5a" as ProductId
const B = "1b7f3c8e-3b52-4c8e-9d0a-6f1f2d3c4b5a" as ProductId

describe("ByteBudgetLru", () => {
  it("holds what fits in its bytes, the least recently used out first", () => {
    const lru = new ByteBudgetLru<string>(300)
    lru.set("a", A, "a", 100)
    lru.set("b", A, "b", 100)
    lru.set("c", B, "c", 100)
    assert.strictEqual(lru.get("a"), "a") // now the most recently used
    lru.set("d", B, "d", 100)
    assert.deepStrictEqual(
      ["a", "b", "c", "d"].map((k) => lru.peek(k)),
      ["a", undefined, "c", "d"]
    )
    assert.strictEqual(lru.bytes, 300)
    assert.strictEqual(lru.evictions, 1)
  })

  it("drops a product's entries together, and nothing else", () => {
    const lru = new ByteBudgetLru<string>(1_000)
    lru.set("record a", A, "1", 10)
    lru.set("view a", A, "2", 10)
    lru.set("record b", B, "3", 10)
    assert.deepStrictEqual([...lru.deleteProduct(A)].sort(), ["record a", "view a"])
    assert.deepStrictEqual([lru.size, lru.bytes, lru.peek("record b")], [1, 10, "3"])
    assert.deepStrictEqual(lru.deleteProduct(A), [])
  })

  it("an entry that grows past the budget evicts others; one larger than the budget is never held", () => {
    const lru = new ByteBudgetLru<string>(300)
    lru.set("a", A, "a", 100)
    lru.set("b", B, "b", 100)
    lru.resize("b", 250)
    assert.deepStrictEqual([lru.peek("a"), lru.peek("b"), lru.bytes], [undefined, "b", 250])
    lru.set("huge", A, "huge", 301)
    assert.deepStrictEqual([lru.peek("huge"), lru.peek("b")], [undefined, "b"])
  })
})

describe("Freshness", () => {
  it("a load that began before a change of its product may not stand for it; other products' loads may", () => {
    const freshness = new Freshness()
    const started = freshness.begin()
    freshness.record(productsChanged([A]))
    assert.isFalse(freshness.isCurrent(started, A))
    assert.isTrue(freshness.isCurrent(started, B))
    // A load of a product it does not know yet (a read by slug) stands only if nothing changed at all.
    assert.isFalse(freshness.isCurrent(started, undefined))
    freshness.end()
  })

  it("a flush makes every load that began before it stale; loads after it are current", () => {
    const freshness = new Freshness()
    const before = freshness.begin()
    freshness.record(everythingChanged)
    const after = freshness.begin()
    assert.isFalse(freshness.isCurrent(before, B))
    assert.isTrue(freshness.isCurrent(after, B))
  })

  it("what it remembers of changes goes once no load is in flight", () => {
    const freshness = new Freshness()
    const first = freshness.begin()
    freshness.record(productsChanged([A]))
    freshness.end()
    const second = freshness.begin()
    assert.isTrue(freshness.isCurrent(second, A))
    assert.isFalse(freshness.isCurrent(first, undefined))
  })
})

/** A ProductReads whose loads take `ms` of the test's clock each, counted; a product in `missing` is not found. */
const slowReads = (ms: number, loads: Ref.Ref<number>, missing: Ref.Ref<ReadonlySet<string>>) =>
  Layer.succeed(
    ProductReads,
    ProductReads.of({
      load: (kind, ref) =>
        Effect.gen(function* () {
          yield* Ref.update(loads, (n) => n + 1)
          yield* Effect.sleep(`${ms} millis`)
          if ((yield* Ref.get(missing)).has(ref)) return yield* new ProductNotFound({ ref })
          return { productId: ref as ProductId, prepared: prepareFast(new TextEncoder().encode(`${kind} ${ref}`), "application/json") }
        })
    })
  )

const cacheWith = (ms: number) =>
  Effect.gen(function* () {
    const loads = yield* Ref.make(0)
    const missing = yield* Ref.make<ReadonlySet<string>>(new Set())
    const cache = yield* make(10 * (ENTRY_OVERHEAD_BYTES + 100)).pipe(Effect.provide(slowReads(ms, loads, missing)))
    return { ...cache, loads: Ref.get(loads), missing }
  })

/** A read whose load takes `elapsed` on the test clock: started, the clock moved on, its answer. */
const readNow = <A, E>(read: Effect.Effect<A, E>, elapsed: `${number} millis`) =>
  Effect.gen(function* () {
    const reading = yield* Effect.forkChild(read)
    yield* TestClock.adjust(elapsed)
    return yield* Fiber.join(reading)
  })

describe("the reads the cache answers as they come", () => {
  it("are the product reads of the API's routes, in their canonical form; anything else goes to the API", () => {
    const id = A.toUpperCase()
    const cases: ReadonlyArray<readonly [string, string | undefined]> = [
      [`/products/${id}`, readKey("record", A)],
      [`/products/${A}/agent-card`, readKey("card", A)],
      [`/entities/${A}`, readKey("record", A)],
      ["/entities/acme-analytics?format=json", readKey("record", "acme-analytics")],
      ["/entities/acme-analytics?format=agent", readKey("view", "acme-analytics")],
      ["/entities/acme-analytics/problems", readKey("problems", "acme-analytics")],
      ["/entities/acme-analytics/problems?limit=5", undefined],
      [`/products/${A}?x=1`, undefined],
      ["/products/acme-analytics", undefined],
      // A slug in any case is the same read: the API decodes it to its lowercase.
      ["/entities/Acme-Analytics", readKey("record", "acme-analytics")],
      ["/entities/ACME-ANALYTICS?format=agent", readKey("view", "acme-analytics")],
      ["/entities/Acme_Analytics", undefined],
      ["/entities/acme-analytics?format=xml", undefined],
      ["/products", undefined],
      [`/products/${A}/agent-card/x`, undefined]
    ]
    for (const [url, key] of cases) assert.strictEqual(keyOfRequest(url), key, url)
  })

  it("a product's own path is matched by its characters: an id in any case, and nothing that is not one", () => {
    const mixed = `${A.slice(0, 9).toUpperCase()}${A.slice(9)}`
    assert.deepStrictEqual(readOfRequest(`/products/${A}`), { key: readKey("record", A), route: "/products/{id}" })
    assert.deepStrictEqual(readOfRequest(`/products/${mixed}`), { key: readKey("record", A), route: "/products/{id}" })
    for (const url of [
      `/products/${A.replace("0", "g")}`,
      `/products/${A.replace("-", "0")}`,
      `/products/${A.slice(0, -1)}-`,
      `/producta/${A}`,
      `/Products/${A}`,
      `/products/${A}/`,
      `/products/${A.slice(0, -1)}`,
      `/products/${A}0`,
      `/products/${A.replace("b", "\u00e9")}`
    ]) {
      assert.strictEqual(readOfRequest(url), undefined, url)
    }
  })

  it("each read names the template of the route it came by, as the request metrics label it", () => {
    const routes: ReadonlyArray<readonly [string, string]> = [
      [`/products/${A}`, "/products/{id}"],
      [`/products/${A}/agent-card`, "/products/{id}/agent-card"],
      [`/entities/${A}`, "/entities/{slug}"],
      ["/entities/acme-analytics?format=agent", "/entities/{slug}"],
      ["/entities/acme-analytics/problems", "/entities/{slug}/problems"]
    ]
    for (const [url, route] of routes) assert.strictEqual(readOfRequest(url)?.route, route, url)
  })
})

describe("ReadCache", () => {
  it.effect("a miss is one load however many requests wait for it, and then a hit", () =>
    Effect.gen(function* () {
      const { service, loads } = yield* cacheWith(100)
      const readers = yield* Effect.forkChild(
        Effect.all(
          Array.from({ length: 10 }, () => service.read("record", A)),
          { concurrency: "unbounded" }
        )
      )
      yield* TestClock.adjust("100 millis")
      const answers = yield* Fiber.join(readers)
      assert.strictEqual(new Set(answers).size, 1)
      assert.strictEqual(yield* loads, 1)
      assert.isDefined(service.peek(readKey("record", A)))
      assert.deepStrictEqual([service.stats().misses, service.stats().hits], [1, 1])
    }).pipe(Effect.scoped)
  )

  it.effect("a load that a change of its product overlapped is answered but not kept; the next read loads anew", () =>
    Effect.gen(function* () {
      const { service, onChange, loads } = yield* cacheWith(100)
      const reader = yield* Effect.forkChild(service.read("view", A))
      yield* TestClock.adjust("50 millis")
      onChange(productsChanged([A]))
      yield* TestClock.adjust("50 millis")
      yield* Fiber.join(reader)
      assert.isUndefined(service.peek(readKey("view", A)))
      // A request that comes now does not join the stale load.
      const again = yield* Effect.forkChild(service.read("view", A))
      yield* TestClock.adjust("100 millis")
      yield* Fiber.join(again)
      assert.strictEqual(yield* loads, 2)
      assert.isDefined(service.peek(readKey("view", A)))
    }).pipe(Effect.scoped)
  )

  it.effect("refresh ahead: a held read whose product changed is loaded again in the background, then a hit", () =>
    Effect.gen(function* () {
      const { service, onChange, loads } = yield* cacheWith(100)
      yield* readNow(service.read("record", A), "100 millis")
      onChange(productsChanged([A, B]))
      assert.isUndefined(service.peek(readKey("record", A)))
      yield* TestClock.adjust("100 millis")
      assert.strictEqual(yield* loads, 2)
      assert.isDefined(service.peek(readKey("record", A)))
      assert.deepStrictEqual([service.stats().invalidations, service.stats().refreshes], [1, 1])
    }).pipe(Effect.scoped)
  )

  it.effect("a product that changes on and on is refreshed once per interval, not after every change; then a hit once it stops", () =>
    Effect.gen(function* () {
      // Loads of 1 ms; a change every millisecond for a second, as a viral product's votes come.
      const { service, onChange, loads } = yield* cacheWith(1)
      yield* readNow(service.read("record", A), "1 millis")
      for (let ms = 0; ms < 1_000; ms++) {
        onChange(productsChanged([A]))
        yield* TestClock.adjust("1 millis")
      }
      // One load to fill it, then at most one a MIN_INTERVAL_MS (about ten): each change used to queue one more,
      // overtaken by the next change before it landed (a thousand, one a change, before).
      const during = (yield* loads) - 1
      assert.isAtMost(during, 1_000 / MIN_INTERVAL_MS + 1)
      assert.isAtLeast(during, 1)
      assert.isUndefined(service.peek(readKey("record", A)))
      // The changes stop: the last one's refresh comes within the interval, and is kept.
      yield* TestClock.adjust(`${MIN_INTERVAL_MS + 1} millis`)
      assert.isDefined(service.peek(readKey("record", A)))
      // Another key is not held back by A's interval.
      yield* readNow(service.read("card", B), "1 millis")
      onChange(productsChanged([B]))
      yield* TestClock.adjust("1 millis")
      assert.isDefined(service.peek(readKey("card", B)))
    }).pipe(Effect.scoped)
  )

  it.effect("a refresh that fails is logged, not dropped silently; the next request loads the read itself", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const logger = Logger.make(({ message }) => {
        lines.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
      })
      const { service, onChange, missing } = yield* cacheWith(10).pipe(Effect.provide(Logger.layer([logger])))
      const first = yield* Effect.forkChild(service.read("record", A))
      yield* TestClock.adjust("10 millis")
      yield* Fiber.join(first)
      yield* Ref.set(missing, new Set([A]))
      onChange(productsChanged([A]))
      yield* TestClock.adjust("10 millis")
      yield* Effect.yieldNow
      assert.isTrue(
        lines.some((line) => line.includes(`refreshing ${readKey("record", A)} failed`)),
        lines.join("\n")
      )
      const failed = yield* Effect.forkChild(Effect.flip(service.read("record", A)))
      yield* TestClock.adjust("10 millis")
      assert.strictEqual((yield* Fiber.join(failed))._tag, "ProductNotFound")
    }).pipe(Effect.scoped)
  )

  it.effect("a flush drops everything held", () =>
    Effect.gen(function* () {
      const { service, onChange } = yield* cacheWith(1)
      const reads = yield* Effect.forkChild(Effect.all([service.read("record", A), service.read("card", B)], { concurrency: 2 }))
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(reads)
      assert.strictEqual(service.stats().entries, 2)
      onChange(everythingChanged)
      assert.deepStrictEqual([service.stats().entries, service.stats().bytes, service.stats().flushes], [0, 0, 1])
    }).pipe(Effect.scoped)
  )
})
