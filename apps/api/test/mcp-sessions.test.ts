/**
 * The MCP sessions' subscriptions and streams (packages/mcp/src/sessions.ts) on the
 * memory store's change feed: what a stream carries, and that nothing is left
 * behind (no subscription, no stream, no listener on the feed) once a session's
 * session ends or its last subscription goes, and that a stream closing keeps the subscriptions for the next one.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { CatalogStore, ProductChanges, type ProductId } from "@productdir/domain"
import { sampleCatalog } from "@productdir/fixtures/sample"
import * as MemoryStore from "@productdir/store-memory"
import {
  MAX_SUBSCRIPTIONS,
  MAX_SUBSCRIPTIONS_IN_ALL,
  make,
  SESSIONS_PER_NETWORK,
  SUBSCRIPTIONS_PER_NETWORK,
  URIS_PER_PRODUCT
} from "@productdir/mcp/sessions"

const catalog = sampleCatalog()
const [a, b] = [catalog[0]!, catalog[1]!]
const uriOf = (id: ProductId) => `productdir://products/${id}`

/** The sessions over the memory store's change feed, and how many listeners that feed holds for them. */
const setup = Effect.gen(function* () {
  const store = yield* CatalogStore
  yield* store.upsert(catalog)
  const real = yield* ProductChanges
  const listeners = { count: 0 }
  // The real feed, counting what subscribes to it and what lets go.
  const counted = ProductChanges.of({
    subscribe: (listener) =>
      Effect.acquireRelease(
        Effect.sync(() => listeners.count++),
        () => Effect.sync(() => listeners.count--)
      ).pipe(Effect.andThen(real.subscribe(listener)))
  })
  const { service } = yield* Effect.provideService(make, ProductChanges, counted)
  /** A change of the product: removed, or back again. */
  const change = (input: (typeof catalog)[number]) =>
    Effect.flatMap(store.find(input.id).pipe(Effect.result), (found) =>
      found._tag === "Success" ? Effect.asVoid(store.remove([input.id])) : Effect.asVoid(store.upsert([input]))
    )
  return { sessions: service, listeners, change }
})

const decoder = new TextDecoder()
const text = (chunks: Iterable<Uint8Array>) => [...chunks].map((chunk) => decoder.decode(chunk)).join("")

describe("MCP sessions", () => {
  it.effect("a change waits for the session's stream; the stream closing keeps its subscriptions for the next stream", () =>
    Effect.gen(function* () {
      const { sessions, listeners, change } = yield* setup
      sessions.opened("one", 0)
      expect(sessions.knows("one")).toBe(true)
      yield* sessions.subscribe("one", uriOf(a.id), a.id)
      expect([listeners.count, sessions.stats().following]).toEqual([1, true])
      // Twice before the stream opens: told once.
      yield* change(a)
      yield* change(a)
      const events = yield* sessions.stream("one")
      // The opening comment and one notification, then the client goes away.
      const sent = text(yield* Stream.runCollect(Stream.take(events, 2)))
      expect(sent).toContain(`"method":"notifications/resources/updated","params":{"uri":"${uriOf(a.id)}"}`)
      expect(sent.match(/notifications\/resources\/updated/g)).toHaveLength(1)
      expect(sessions.stats()).toEqual({ sessions: 1, subscriptions: 1, streams: 0, following: true })
      // A change while no stream is open waits for the client's next one (it reconnected).
      yield* change(a)
      const again = text(yield* Stream.runCollect(Stream.take(yield* sessions.stream("one"), 2)))
      expect(again.match(/notifications\/resources\/updated/g)).toHaveLength(1)
      // The session ending lets go of everything.
      yield* sessions.ended("one")
      expect(sessions.stats()).toEqual({ sessions: 0, subscriptions: 0, streams: 0, following: false })
      expect(listeners.count).toBe(0)
    }).pipe(Effect.scoped, Effect.provide(MemoryStore.layer))
  )

  // Live: the test waits on the real clock for what the stream carries.
  it.live("the session ending (DELETE) ends its open stream and lets go of the feed", () =>
    Effect.gen(function* () {
      const { sessions, listeners, change } = yield* setup
      sessions.opened("two", 0)
      yield* sessions.subscribe("two", uriOf(b.id), b.id)
      const events = yield* sessions.stream("two")
      const received: Array<Uint8Array> = []
      const reading = yield* Effect.forkChild(Stream.runForEach(events, (chunk) => Effect.sync(() => received.push(chunk))))
      yield* change(b)
      // The notification goes out on the open stream.
      while (!text(received).includes(uriOf(b.id))) yield* Effect.sleep("10 millis")
      yield* sessions.ended("two")
      yield* Fiber.join(reading)
      expect(sessions.knows("two")).toBe(false)
      expect(sessions.stats()).toEqual({ sessions: 0, subscriptions: 0, streams: 0, following: false })
      expect(listeners.count).toBe(0)
    }).pipe(Effect.scoped, Effect.provide(MemoryStore.layer))
  )

  it.effect("one listener for every session; the last unsubscribe lets go of it; a session's subscriptions are bounded", () =>
    Effect.gen(function* () {
      const { sessions, listeners } = yield* setup
      yield* sessions.subscribe("three", uriOf(a.id), a.id)
      yield* sessions.subscribe("four", uriOf(a.id), a.id)
      yield* sessions.subscribe("four", uriOf(b.id), b.id)
      expect(listeners.count).toBe(1)
      yield* sessions.unsubscribe("three", uriOf(a.id))
      expect(listeners.count).toBe(1)
      yield* sessions.unsubscribe("four", uriOf(a.id))
      yield* sessions.unsubscribe("four", uriOf(b.id))
      expect([listeners.count, sessions.stats().following]).toEqual([0, false])
      for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) yield* sessions.subscribe("five", `test://static/${i}`, undefined)
      const refused = yield* Effect.flip(sessions.subscribe("five", uriOf(a.id), a.id))
      expect(refused.message).toContain(`${MAX_SUBSCRIPTIONS} resources at most`)
      // One product by many spellings of its URI fills no more than a few places.
      for (let i = 0; i < URIS_PER_PRODUCT; i++) yield* sessions.subscribe("six", `${uriOf(a.id)}${"%20".repeat(i)}`, a.id)
      const spelt = yield* Effect.flip(sessions.subscribe("six", `${uriOf(a.id)}?again`, a.id))
      expect(spelt.message).toContain(`by ${URIS_PER_PRODUCT} URIs at most`)
      // And the process holds so many in all, whatever the sessions.
      for (let session = 0; (session + 1) * MAX_SUBSCRIPTIONS <= MAX_SUBSCRIPTIONS_IN_ALL; session++) {
        for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) {
          const added = yield* Effect.result(sessions.subscribe(`many-${session}`, `test://static/${i}`, undefined))
          if (added._tag === "Failure") {
            expect(added.failure.message).toContain(`${MAX_SUBSCRIPTIONS_IN_ALL} subscriptions`)
            return
          }
        }
      }
      expect.unreachable("the process-wide cap was never reached")
    }).pipe(Effect.scoped, Effect.provide(MemoryStore.layer))
  )

  it.effect("one client network holds its share of sessions and subscriptions, and its flood ends its own sessions, no one else's", () =>
    Effect.gen(function* () {
      const { sessions } = yield* setup
      const now = 1_000_000
      // An honest client's idle session, with a subscription, from another network.
      sessions.opened("honest", now, "198.51.100.7")
      yield* sessions.subscribe("honest", uriOf(a.id), a.id)
      // A flood of sessions from one /64, each asking for room first as the edge does: it ends its own, never the honest one.
      const attacker = "2001:db8:1:2::"
      for (let i = 0; i < SESSIONS_PER_NETWORK * 3; i++) {
        const address = `${attacker}${(i % 50) + 1}`
        for (const ending of sessions.toEnd(now + i, 3_600_000, 10_000, address)) yield* sessions.ended(ending)
        sessions.opened(`flood-${i}`, now + i, address)
      }
      expect(sessions.knows("honest")).toBe(true)
      expect(sessions.stats().sessions).toBe(SESSIONS_PER_NETWORK + 1)
      // The first of them are the ones that ended: least recently used first.
      expect(sessions.knows("flood-0")).toBe(false)
      expect(sessions.knows(`flood-${SESSIONS_PER_NETWORK * 3 - 1}`)).toBe(true)
      // Its sessions' subscriptions stop at the network's share, and the honest session still subscribes.
      let refused: string | undefined
      for (let i = 0; refused === undefined && i < SUBSCRIPTIONS_PER_NETWORK + 1; i++) {
        const session = `flood-${SESSIONS_PER_NETWORK * 2 + Math.floor(i / MAX_SUBSCRIPTIONS)}`
        const added = yield* Effect.result(sessions.subscribe(session, `test://static/${i}`, undefined))
        if (added._tag === "Failure") refused = added.failure.message
      }
      expect(refused).toContain(`Sessions from your network (IPv6 /64) hold ${SUBSCRIPTIONS_PER_NETWORK} subscriptions`)
      yield* sessions.subscribe("honest", uriOf(b.id), b.id)
      expect(sessions.stats().subscriptions).toBe(SUBSCRIPTIONS_PER_NETWORK + 2)
      // A session that ends gives its network's share back.
      yield* sessions.ended(`flood-${SESSIONS_PER_NETWORK * 2}`)
      yield* sessions.subscribe(`flood-${SESSIONS_PER_NETWORK * 2 + 3}`, "test://static/again", undefined)
    }).pipe(Effect.scoped, Effect.provide(MemoryStore.layer))
  )

  it.effect(
    "96 addresses in 24 /16s filling the process's subscriptions: a newcomer can still subscribe, the heaviest network gives way",
    () =>
      Effect.gen(function* () {
        const { sessions } = yield* setup
        const now = 2_000_000
        let held = 0
        // Four addresses in each of 24 /16s, each with sessions that subscribe until refused (as the edge asks for room first).
        for (let net = 0; net < 24 && held < MAX_SUBSCRIPTIONS_IN_ALL; net++) {
          for (let host = 0; host < 4; host++) {
            const address = `10.${net}.${host}.1`
            for (let s = 0; s < 2; s++) {
              const id = `flood-${net}-${host}-${s}`
              sessions.opened(id, now + held, address)
              for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) {
                for (const ending of sessions.roomToSubscribe(address)) yield* sessions.ended(ending)
                const added = yield* Effect.result(sessions.subscribe(id, `test://static/${i}`, undefined))
                if (added._tag === "Failure") break
                held++
              }
            }
          }
        }
        expect(sessions.stats().subscriptions).toBe(MAX_SUBSCRIPTIONS_IN_ALL)
        // A newcomer from elsewhere: room is made for it, by ending one session of the network holding most.
        sessions.opened("newcomer", now + held, "192.0.2.50")
        const room = sessions.roomToSubscribe("192.0.2.50")
        expect(room).toHaveLength(1)
        expect(room[0]).toMatch(/^flood-/)
        // That network is made no room for itself: its next subscription is refused.
        const heaviest = /^flood-(\d+)-/.exec(room[0]!)![1]
        expect(sessions.roomToSubscribe(`10.${heaviest}.3.9`)).toEqual([])
        for (const ending of room) yield* sessions.ended(ending)
        yield* sessions.subscribe("newcomer", uriOf(a.id), a.id)
        expect(sessions.knows("newcomer")).toBe(true)
      }).pipe(Effect.scoped, Effect.provide(MemoryStore.layer))
  )
})
