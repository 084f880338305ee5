/**
 * What this process keeps of each MCP session (the sessions themselves are the
 * MCP library's): the resources it subscribed to, and the stream its
 * notifications go out on (GET /mcp, server-sent events).
 *
 * - A change of a product reaches every subscription to it through the change
 *   feed the read cache follows (ProductChanges): this process's own changes at
 *   once, other processes' within a poll. The feed is followed only while some
 *   session has a subscription: one listener for all of them, released with the
 *   last subscription.
 * - A notification waits while the session has no stream open (a client opens
 *   it right after initialize, and may subscribe first); each resource is
 *   notified once however often it changed before the stream took it, so what
 *   waits is bounded by the session's subscriptions.
 * - One stream per session: a new GET replaces the older one. A stream that
 *   closes (a dropped connection, a client reconnecting) leaves the session's
 *   subscriptions as they were: what changes meanwhile waits for the next
 *   stream. They end with the session: DELETE /mcp, or the session ending idle
 *   (below); a draining server ends every stream.
 * - Sessions are bounded: a client can send initialize as fast as it likes, and
 *   each session costs the library and us ~14 KB, never freed without a DELETE.
 *   So a session with no request and no open stream for MCP_SESSION_IDLE ends,
 *   and past MCP_MAX_SESSIONS a new one ends the least recently used idle one
 *   (`toEnd`; the edge ends them in the library, edge.ts). A client whose
 *   session ended gets 404 and, as MCP says, initializes again.
 */
import { type Cause, Context, Data, Effect, Exit, Layer, Queue, RcRef, Schedule, Scope, Stream } from "effect"
import { type ProductChange, ProductChanges, type ProductId } from "@productdir/domain"
import { networksOf } from "@productdir/usecases"
import { Lifecycle } from "@productdir/edge/lifecycle"
import { levelName } from "@productdir/edge/refusals"

/** How many resources one session may subscribe to: what waits for its stream is bounded by this. */
export const MAX_SUBSCRIPTIONS = 1_000

/**
 * How many URIs of one product a session may follow: its slug and its id are two, and a URI can be
 * spelt many ways (`%74allyhouse`), each of which would otherwise fill a place of the session's 1,000.
 */
export const URIS_PER_PRODUCT = 4

/**
 * Subscriptions this process holds in all, whatever the sessions (about 300 B each): many sessions of
 * 1,000 each would otherwise take the process past its heap.
 */
export const MAX_SUBSCRIPTIONS_IN_ALL = 100_000

/**
 * The share of sessions and subscriptions one client network may hold (its own address or IPv6 /64; its wider
 * networks twice, four and eight times that, as the connection caps nest): else one client could fill every
 * subscription the process holds and lock every other session out of subscribing, and its initializes would end
 * every other client's idle session. A network past its share ends its own least recently used session.
 */
export const SESSIONS_PER_NETWORK = 100
export const SUBSCRIPTIONS_PER_NETWORK = 2_000

/** A comment on an idle stream this often, so proxies and clients see the connection alive. */
const KEEPALIVE = "15 seconds"

interface NetworkShare {
  /** `v6/48:2001:db8:7:0:0:0:0:0/48`: a level and its prefix. */
  readonly key: string
  /** 1 for the client's own network, 2, 4, 8 for the wider ones. */
  readonly times: number
  /** What the network may hold, as `times` × SESSIONS_PER_NETWORK or SUBSCRIPTIONS_PER_NETWORK. */
  readonly level: string
}

/** The networks of a client address, with their shares' multiples (as packages/http/src/connections.ts nests its caps). */
const sharesOf = (address: string | undefined): ReadonlyArray<NetworkShare> =>
  address === undefined ? [] : networksOf(address).map((n, i) => ({ key: `${n.level}:${n.prefix}`, times: 2 ** i, level: n.level }))

export class TooManySubscriptions extends Data.TaggedError("TooManySubscriptions")<{ readonly message: string }> {}

interface Session {
  /** The client networks that opened it (networksOf: its own first), each with its share's multiple. */
  readonly networks: ReadonlyArray<NetworkShare>
  /** Subscribed resource URIs, and the product each names (undefined: a resource that does not change). */
  readonly subscriptions: Map<string, ProductId | undefined>
  /** URIs changed and not yet written to a stream (in the outbox, or waiting for one). */
  readonly unsent: Set<string>
  /** The open stream's queue of URIs to notify. */
  outbox: Queue.Queue<string, Cause.Done> | undefined
  /** Holds the change feed while the session has subscriptions. */
  feed: Scope.Closeable | undefined
  /** Epoch milliseconds of its last request. */
  seen: number
  /** The protocol revision initialize agreed. */
  revision: string | undefined
}

export interface SessionStats {
  readonly sessions: number
  readonly subscriptions: number
  readonly streams: number
  /** Whether the change feed is followed (some session has a subscription). */
  readonly following: boolean
}

export class McpSessions extends Context.Service<
  McpSessions,
  {
    /**
     * A session initialize started (its MCP-Session-Id), at `now` (epoch milliseconds), for the client at `address`,
     * in the protocol revision it agreed.
     */
    readonly opened: (sessionId: string, now: number, address?: string, revision?: string) => void
    /** The protocol revision the session agreed, when this process started it. */
    readonly revisionOf: (sessionId: string) => string | undefined
    /** A request of a session this process knows, at `now`: it is not idle. */
    readonly touched: (sessionId: string, now: number) => void
    /**
     * The sessions to end before one more starts at `now` for the client at `address`: where one of its networks
     * holds its share, that network's least recently used ones; then those idle (no stream open) for longer than
     * `idleMillis`, and, while that leaves `max` or more, the least recently used idle ones.
     */
    readonly toEnd: (now: number, idleMillis: number, max: number, address?: string) => ReadonlyArray<string>
    /**
     * The sessions to end so that the client at `address` may subscribe when the process holds
     * MAX_SUBSCRIPTIONS_IN_ALL: the least recently used one of the widest network holding the most, unless that is
     * the client's own (then none, and its subscription is refused). A newcomer is never refused because strangers
     * came first: the ones holding most give way.
     */
    readonly roomToSubscribe: (address?: string) => ReadonlyArray<string>
    /** Whether this process started the session and it has not ended. */
    readonly knows: (sessionId: string) => boolean
    readonly subscribe: (sessionId: string, uri: string, product: ProductId | undefined) => Effect.Effect<void, TooManySubscriptions>
    readonly unsubscribe: (sessionId: string, uri: string) => Effect.Effect<void>
    /** The session's notifications as server-sent events, until the session ends or another stream replaces this one. */
    readonly stream: (sessionId: string) => Effect.Effect<Stream.Stream<Uint8Array>>
    /** The session ended (DELETE /mcp): its subscriptions and its stream end. */
    readonly ended: (sessionId: string) => Effect.Effect<void>
    /** URIs of resources that never change, which may be subscribed to (the MCP server's static resources). */
    readonly staticResources: { current: () => ReadonlyArray<string> }
    readonly stats: () => SessionStats
  }
>()("@productdir/mcp/McpSessions") {}

const encoder = new TextEncoder()
const event = (message: unknown) => encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
const updated = (uri: string) => event({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } })

export const make = Effect.gen(function* () {
  const changes = yield* ProductChanges
  const sessions = new Map<string, Session>()
  /** Product -> the sessions subscribed to it, and by which URIs. */
  const watchers = new Map<ProductId, Map<Session, Set<string>>>()
  let following = false

  const notify = (session: Session, uri: string) => {
    if (session.unsent.has(uri)) return
    session.unsent.add(uri)
    if (session.outbox !== undefined) Queue.offerUnsafe(session.outbox, uri)
  }

  const onChange = (change: ProductChange) => {
    if (change._tag === "Everything") {
      // Changes may have been missed: every subscribed product may have changed.
      for (const session of sessions.values())
        for (const [uri, product] of session.subscriptions) if (product !== undefined) notify(session, uri)
      return
    }
    for (const id of change.ids) for (const [session, uris] of watchers.get(id) ?? []) for (const uri of uris) notify(session, uri)
  }

  const feed = yield* RcRef.make({
    acquire: Effect.acquireRelease(
      Effect.sync(() => {
        following = true
      }),
      () =>
        Effect.sync(() => {
          following = false
        })
    ).pipe(Effect.andThen(changes.subscribe(onChange)))
  })

  // `sessions` is kept in the order they were last used: a touched session moves to the end.
  /** Sessions and subscriptions each network holds, by its key. */
  const held = new Map<string, { sessions: number; subscriptions: number }>()
  const heldBy = (key: string) => held.get(key) ?? held.set(key, { sessions: 0, subscriptions: 0 }).get(key)!
  const forget = (key: string) => {
    const h = held.get(key)
    if (h !== undefined && h.sessions === 0 && h.subscriptions === 0) held.delete(key)
  }

  const sessionOf = (sessionId: string, now = 0, address?: string): Session => {
    let session = sessions.get(sessionId)
    if (session === undefined) {
      const networks = sharesOf(address)
      for (const network of networks) heldBy(network.key).sessions++
      session = {
        networks,
        subscriptions: new Map(),
        unsent: new Set(),
        outbox: undefined,
        feed: undefined,
        seen: now,
        revision: undefined
      }
      sessions.set(sessionId, session)
    }
    return session
  }

  const touched = (sessionId: string, now: number) => {
    const session = sessions.get(sessionId)
    if (session === undefined) return
    session.seen = now
    sessions.delete(sessionId)
    sessions.set(sessionId, session)
  }

  const toEnd = (now: number, idleMillis: number, max: number, address?: string): ReadonlyArray<string> => {
    const ending: Array<string> = []
    // The client's networks that hold their share give up their own least recently used sessions first.
    for (const network of sharesOf(address)) {
      let over = (held.get(network.key)?.sessions ?? 0) - (SESSIONS_PER_NETWORK * network.times - 1)
      if (over <= 0) continue
      for (const [id, session] of sessions) {
        if (over <= 0) break
        if (ending.includes(id) || !session.networks.some((n) => n.key === network.key)) continue
        ending.push(id)
        over--
      }
    }
    for (const [id, session] of sessions) {
      if (ending.includes(id)) continue
      if (session.outbox !== undefined) continue
      // Least recently used first: once one is recent enough and there is room, so is every one after it.
      if (now - session.seen <= idleMillis && sessions.size - ending.length < max) break
      ending.push(id)
    }
    return ending
  }

  /** Subscriptions of every session, now. */
  let inAll = 0

  const WIDEST = new Set(["v4/16", "v6/32"])

  const roomToSubscribe = (address?: string): ReadonlyArray<string> => {
    if (inAll < MAX_SUBSCRIPTIONS_IN_ALL) return []
    let heaviest: string | undefined
    let most = 0
    for (const [key, h] of held) {
      if (WIDEST.has(key.slice(0, key.indexOf(":"))) && h.subscriptions > most) {
        heaviest = key
        most = h.subscriptions
      }
    }
    if (heaviest === undefined || sharesOf(address).some((n) => n.key === heaviest)) return []
    // `sessions` is in the order they were last used: the first of that network's with subscriptions.
    for (const [id, session] of sessions) {
      if (session.subscriptions.size > 0 && session.networks.some((n) => n.key === heaviest)) return [id]
    }
    return []
  }

  const unwatch = (session: Session, uri: string) => {
    const product = session.subscriptions.get(uri)
    if (session.subscriptions.delete(uri)) {
      inAll--
      for (const network of session.networks) {
        heldBy(network.key).subscriptions--
        forget(network.key)
      }
    }
    session.unsent.delete(uri)
    if (product === undefined) return
    const bySession = watchers.get(product)
    const uris = bySession?.get(session)
    uris?.delete(uri)
    if (uris?.size === 0) bySession!.delete(session)
    if (bySession?.size === 0) watchers.delete(product)
  }

  /** Lets go of the change feed when the session has nothing left to follow. */
  const release = (session: Session) =>
    Effect.suspend(() => {
      const held = session.feed
      if (held === undefined || session.subscriptions.size > 0) return Effect.void
      session.feed = undefined
      return Scope.close(held, Exit.void)
    })

  const clear = (session: Session) =>
    Effect.suspend(() => {
      for (const uri of [...session.subscriptions.keys()]) unwatch(session, uri)
      session.unsent.clear()
      return release(session)
    })

  const subscribe = (sessionId: string, uri: string, product: ProductId | undefined) =>
    Effect.gen(function* () {
      const session = sessionOf(sessionId)
      if (session.subscriptions.has(uri)) return
      if (session.subscriptions.size >= MAX_SUBSCRIPTIONS) {
        return yield* new TooManySubscriptions({
          message: `A session may subscribe to ${MAX_SUBSCRIPTIONS} resources at most; unsubscribe from some first.`
        })
      }
      if (product !== undefined && (watchers.get(product)?.get(session)?.size ?? 0) >= URIS_PER_PRODUCT) {
        return yield* new TooManySubscriptions({
          message: `A session may follow one product by ${URIS_PER_PRODUCT} URIs at most (its slug and its id are two); this one already does.`
        })
      }
      const full = session.networks.find((n) => (held.get(n.key)?.subscriptions ?? 0) >= SUBSCRIPTIONS_PER_NETWORK * n.times)
      if (full !== undefined) {
        return yield* new TooManySubscriptions({
          message: `Sessions from your network (${levelName(full.level)}) hold ${SUBSCRIPTIONS_PER_NETWORK * full.times} subscriptions, its share; unsubscribe from some first.`
        })
      }
      if (inAll >= MAX_SUBSCRIPTIONS_IN_ALL) {
        return yield* new TooManySubscriptions({
          message: `This server holds ${MAX_SUBSCRIPTIONS_IN_ALL} subscriptions, its most; unsubscribe from some, or retry later.`
        })
      }
      session.subscriptions.set(uri, product)
      inAll++
      for (const network of session.networks) heldBy(network.key).subscriptions++
      if (product !== undefined) {
        const bySession = watchers.get(product) ?? new Map<Session, Set<string>>()
        watchers.set(product, bySession)
        const uris = bySession.get(session) ?? new Set<string>()
        bySession.set(session, uris)
        uris.add(uri)
      }
      if (session.feed === undefined) {
        const scope = yield* Scope.make()
        session.feed = scope
        yield* Scope.provide(RcRef.get(feed), scope)
      }
    })

  const unsubscribe = (sessionId: string, uri: string) =>
    Effect.suspend(() => {
      const session = sessions.get(sessionId)
      if (session === undefined) return Effect.void
      unwatch(session, uri)
      return release(session)
    })

  const stream = (sessionId: string) =>
    Effect.gen(function* () {
      const session = sessionOf(sessionId)
      const outbox = yield* Queue.unbounded<string, Cause.Done>()
      // A newer stream replaces an older one (a client reconnecting after a half-dead connection).
      if (session.outbox !== undefined) Queue.endUnsafe(session.outbox)
      session.outbox = outbox
      for (const uri of session.unsent) Queue.offerUnsafe(outbox, uri)
      const notifications = Stream.fromQueue(outbox).pipe(
        Stream.filter((uri) => session.unsent.delete(uri) && session.subscriptions.has(uri)),
        Stream.map(updated)
      )
      const keepalive = Stream.tick(KEEPALIVE).pipe(
        Stream.drop(1),
        Stream.map(() => encoder.encode(": keepalive\n\n"))
      )
      // A comment first: the response's headers go out at once, and the client knows the stream is open.
      return Stream.concat(
        Stream.succeed(encoder.encode(": notifications of this session's subscriptions\n\n")),
        Stream.merge(notifications, keepalive, { haltStrategy: "left" })
      ).pipe(
        Stream.ensuring(
          Effect.suspend(() => {
            // The session keeps its subscriptions: a client reconnecting its stream goes on where it was, and one that
            // went away for good leaves a session that ends idle (toEnd).
            if (session.outbox === outbox) session.outbox = undefined
            return Effect.void
          })
        )
      )
    })

  const ended = (sessionId: string) =>
    Effect.suspend(() => {
      const session = sessions.get(sessionId)
      if (session === undefined) return Effect.void
      sessions.delete(sessionId)
      if (session.outbox !== undefined) Queue.endUnsafe(session.outbox)
      session.outbox = undefined
      return Effect.ensuring(
        clear(session),
        Effect.sync(() => {
          for (const network of session.networks) {
            heldBy(network.key).sessions--
            forget(network.key)
          }
        })
      )
    })

  /** Ends every open stream: a draining server closes its connections, and a stream would hold one open. */
  const endStreams = Effect.sync(() => {
    for (const session of sessions.values()) if (session.outbox !== undefined) Queue.endUnsafe(session.outbox)
  })

  const stats = (): SessionStats => {
    let subscriptions = 0
    let streams = 0
    for (const session of sessions.values()) {
      subscriptions += session.subscriptions.size
      if (session.outbox !== undefined) streams++
    }
    return { sessions: sessions.size, subscriptions, streams, following }
  }

  const service = McpSessions.of({
    opened: (sessionId, now, address, revision) => {
      sessionOf(sessionId, now, address).revision = revision
    },
    revisionOf: (sessionId) => sessions.get(sessionId)?.revision,
    roomToSubscribe,
    touched,
    toEnd,
    knows: (sessionId) => sessions.has(sessionId),
    subscribe,
    unsubscribe,
    stream,
    ended,
    staticResources: { current: () => [] },
    stats
  })
  return { service, endStreams }
})

/** The sessions of this process; every stream ends when the server starts draining. */
export const layer = Layer.effect(
  McpSessions,
  Effect.gen(function* () {
    const lifecycle = yield* Lifecycle
    const { endStreams, service } = yield* make
    yield* Effect.forkScoped(
      Effect.repeat(
        Effect.suspend(() => (lifecycle.isDraining() ? endStreams : Effect.void)),
        Schedule.spaced("1 second")
      )
    )
    return service
  })
)
