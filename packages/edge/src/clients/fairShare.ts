/**
 * The process's work, shared fairly between clients. Every request the application answers (a search, a read
 * the cache does not hold, each call of an MCP batch; not a vote: WITHOUT_TURNS) runs under one of a few permits,
 * one client (its widest network) under half of them at most; a request that finds none it may take waits in its
 * client's queue, and a freed permit goes to the next client in turn, not to the next request in arrival order. Turns go round the clients' networks as they nest (an IPv4 /16, its /24s,
 * their addresses; an IPv6 /32, /48, /56, /64): a client with 64 connections, or a /48 with a thousand
 * addresses, gets one turn where a lone client gets one too, so it cannot make another client's request wait
 * behind all of its own.
 *
 * Why few permits: the process does its work on one thread (and the embedded database on the same one), so
 * work that runs beside other work only waits for it; the turns are what a client waits for. A request that
 * waits for something outside the process (a signed agent's key directory) gives its permit back meanwhile
 * (`released`), so a slow server elsewhere holds no permit.
 *
 * What it bounds: a client network queues at most QUEUE_PER_NETWORK requests, and a request waits at most
 * HTTP_QUEUE_TIMEOUT for its turn; past either it is answered 503 with Retry-After (`Busy`), so the process
 * never holds more work than it can finish.
 */
import { Context, Data, type Duration, Effect, Layer } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import { ROUTES } from "@productdir/domain"
import { networksOf } from "@productdir/usecases"
import { ApiConfig } from "../ApiConfig.ts"
import { clientAddress } from "./clientAddress.ts"
import { problem } from "../problems/problemResponses.ts"

/** Requests one client network (its own address, an IPv6 /64) may have waiting for a turn at once. */
export const QUEUE_PER_NETWORK = 256

/** No permit came in time, or the client's queue is full: the request is answered 503 (with Retry-After) unrun. */
export class Busy extends Data.TaggedError("Busy")<{ readonly message: string; readonly retryAfterSeconds: number }> {}

export interface FairShareStats {
  /** Work running now, under a permit. */
  readonly running: number
  /** Requests waiting for a turn. */
  readonly waiting: number
}

/** A share of the process's work: `run` in turn by client network, `released` around a wait elsewhere. */
export interface Share {
  /** Runs `work` for the client at `address` when its turn comes. */
  readonly run: <A, E, R>(address: string, work: Effect.Effect<A, E, R>) => Effect.Effect<A, E | Busy, R>
  /** Runs `wait` (a wait on something outside the process) without the permit the current work holds, if any. */
  readonly released: <A, E, R>(wait: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly stats: () => FairShareStats
}

export class FairShare extends Context.Service<FairShare, Share>()("@productdir/edge/FairShare") {}

/** A permit of the current fiber's work (`run` puts it there), so that `released` can lend it back meanwhile. */
interface Permit {
  /** The share it is of: another share's (a batch's slot: packages/mcp/src/batchSlots.ts) is not this one's to lend. */
  readonly share: object
  readonly address: string
  readonly client: string
  held: boolean
}

const HeldPermit = Context.Reference<Permit | undefined>("@productdir/edge/HeldPermit", { defaultValue: () => undefined })

interface Waiter {
  /** Its client: the widest network of its address, whose share of the permits it draws on. */
  readonly client: string
  readonly grant: () => void
}

/** One level of the networks' tree: its children in turn, or (its last level) the requests of one network. */
interface Level {
  readonly children: Map<string, Level>
  /** Keys of the children with waiting requests, in turn order; `next` is whose turn comes next. */
  readonly turns: Array<string>
  next: number
  readonly waiting: Array<Waiter>
  size: number
}

const newLevel = (): Level => ({ children: new Map(), turns: [], next: 0, waiting: [], size: 0 })

/** The path of a client address through the tree: its widest network first, its own last. */
const pathOf = (address: string): ReadonlyArray<string> => {
  const networks = networksOf(address).map((n) => `${n.level}:${n.prefix}`)
  return networks.length === 0 ? [address] : networks.reverse()
}

export interface FairShareOptions {
  /** Work that may run at once. */
  readonly permits: number
  /** How long a request may wait for its turn. */
  readonly maxWait: Duration.Duration
  /** Permits one client (its widest network) may hold at once; half of them when unset. */
  readonly perClient?: number
}

export const make = (options: FairShareOptions) =>
  Effect.sync((): Share => {
    const self = {}
    const root = newLevel()
    let running = 0
    /**
     * Permits one client (its widest network) may hold at once: half of them, whether or not another client has work
     * now (a client of sequential requests is idle between two of them, and would find every permit taken again).
     * Work runs on one thread, so a request beside others waits for them: a client that holds every permit makes
     * another's request wait for a permit to free, then share the thread with all of its own (an MCP batch's
     * searches, say); the smaller the share one client may hold, the shorter that wait (docs/benchmarks.md,
     * "Issue 57", has the figures).
     */
    const cap = Math.max(1, options.perClient ?? Math.ceil(options.permits / 2))
    /** Permits held, by widest network (a path's first key). */
    const held = new Map<string, number>()

    /** The next request in turn: at each level, the child whose turn it is, then the next one's; none of a client that holds its share. */
    const takeFrom = (level: Level, top: boolean): Waiter | undefined => {
      if (level.turns.length === 0) return level.waiting.shift()
      for (let tried = 0; tried < level.turns.length; tried++) {
        const at = (level.next + tried) % level.turns.length
        const key = level.turns[at]!
        if (top && (held.get(key) ?? 0) >= cap) continue
        const child = level.children.get(key)!
        const waiter = takeFrom(child, false)
        child.size--
        if (child.size === 0) {
          level.children.delete(key)
          level.turns.splice(at, 1)
          level.next = at
        } else level.next = at + 1
        return waiter
      }
      return undefined
    }

    const dispatch = () => {
      while (running < options.permits && root.size > 0) {
        const waiter = takeFrom(root, true)
        // Every client with requests waiting holds its share: the permit stays free for one that does not.
        if (waiter === undefined) return
        root.size--
        running++
        held.set(waiter.client, (held.get(waiter.client) ?? 0) + 1)
        waiter.grant()
      }
    }

    const release = (client: string) => {
      running--
      const left = (held.get(client) ?? 1) - 1
      if (left === 0) held.delete(client)
      else held.set(client, left)
      dispatch()
    }

    /** Puts `waiter` in the queue of `path`'s network; false when that queue is full. */
    const enqueue = (path: ReadonlyArray<string>, waiter: Waiter): boolean => {
      let level = root
      for (const key of path) level = level.children.get(key) ?? newLevel()
      if (level.waiting.length >= QUEUE_PER_NETWORK) return false
      level = root
      root.size++
      for (const key of path) {
        let child = level.children.get(key)
        if (child === undefined) {
          child = newLevel()
          level.children.set(key, child)
          level.turns.push(key)
        }
        child.size++
        level = child
      }
      level.waiting.push(waiter)
      return true
    }

    /** Takes a waiter that gave up (its request ended, or waited too long) out of the queue. */
    const dequeue = (path: ReadonlyArray<string>, waiter: Waiter) => {
      const levels: Array<Level> = [root]
      for (const key of path) {
        const next = levels[levels.length - 1]!.children.get(key)
        if (next === undefined) return
        levels.push(next)
      }
      const own = levels[levels.length - 1]!
      const at = own.waiting.indexOf(waiter)
      if (at === -1) return
      own.waiting.splice(at, 1)
      for (let i = levels.length - 1; i >= 0; i--) {
        const level = levels[i]!
        level.size--
        if (i > 0 && level.size === 0) {
          const parent = levels[i - 1]!
          const key = path[i - 1]!
          parent.children.delete(key)
          const turn = parent.turns.indexOf(key)
          parent.turns.splice(turn, 1)
          if (parent.next > turn) parent.next--
        }
      }
    }

    const busy = (message: string) => new Busy({ message, retryAfterSeconds: 1 })

    /** Waits for a permit for `address`; the permit is held when this succeeds (by the client `pathOf(address)[0]`). */
    const acquire = (address: string): Effect.Effect<void, Busy> =>
      Effect.suspend((): Effect.Effect<void, Busy> => {
        const path = pathOf(address)
        return Effect.callback<void, Busy>((resume) => {
          let granted = false
          const waiter: Waiter = {
            client: path[0]!,
            grant: () => {
              granted = true
              resume(Effect.void)
            }
          }
          if (!enqueue(path, waiter)) {
            resume(Effect.fail(busy("This server has too many of your requests waiting; retry shortly.")))
            return
          }
          // Granted at once when a permit is free and its client is within its share (and first in turn).
          dispatch()
          // Interrupted while waiting (the client left, or the wait ran out): out of the queue; a permit it had just
          // been granted goes on to the next in turn.
          return Effect.sync(() => {
            if (granted) release(waiter.client)
            else dequeue(path, waiter)
          })
        }).pipe(
          Effect.timeoutOrElse({
            duration: options.maxWait,
            orElse: () => Effect.fail(busy("This server is busy; retry shortly."))
          })
        )
      })

    /** Gives the permit back, if it is still held. */
    const giveBack = (permit: Permit) =>
      Effect.sync(() => {
        if (!permit.held) return
        permit.held = false
        release(permit.client)
      })

    // The wait for a turn can be interrupted (the client left, the deadline passed); the work, once it has its
    // permit, gives it back however it ends.
    const run = <A, E, R>(address: string, work: Effect.Effect<A, E, R>): Effect.Effect<A, E | Busy, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(restore(acquire(address)), () => {
          const permit: Permit = { share: self, address, client: pathOf(address)[0]!, held: true }
          return restore(Effect.provideService(work, HeldPermit, permit)).pipe(Effect.ensuring(giveBack(permit)))
        })
      )

    const released = <A, E, R>(wait: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.flatMap(HeldPermit, (permit) =>
        permit === undefined || permit.share !== self || !permit.held
          ? wait
          : Effect.uninterruptibleMask((restore) =>
              giveBack(permit).pipe(
                Effect.andThen(Effect.exit(restore(wait))),
                // Back in turn for the rest of the work. A wait past the deadline takes its permit anyway, so that the
                // work finishes what it began; interrupted meanwhile, it holds none, and gives none back.
                Effect.flatMap((exit) =>
                  restore(acquire(permit.address)).pipe(
                    Effect.catch(() =>
                      Effect.sync(() => {
                        running++
                        held.set(permit.client, (held.get(permit.client) ?? 0) + 1)
                      })
                    ),
                    Effect.andThen(
                      Effect.sync(() => {
                        permit.held = true
                      })
                    ),
                    Effect.andThen(exit)
                  )
                )
              )
            )
      )

    return { run, released, stats: () => ({ running, waiting: root.size }) }
  })

/** HTTP_CONCURRENCY permits, HTTP_QUEUE_TIMEOUT's wait. */
export const layer = Layer.effect(
  FairShare,
  Effect.flatMap(ApiConfig, (config) => make({ permits: config.concurrency, maxWait: config.queueTimeout }))
)

/**
 * Paths answered without a turn: probes and scrapes must answer however busy the process is; /mcp takes a turn per
 * message (packages/mcp/src/edge.ts); a vote has budgets of its own (per voter, per client network) and is written in batches
 * with others in flight (one transaction for many): queued behind reads, the batches would not form.
 */
const WITHOUT_TURNS: ReadonlySet<string> = new Set([ROUTES.healthz, ROUTES.readyz, ROUTES.metrics, ROUTES.mcp, ROUTES.vote])

/** `effect` with a `Busy` (no turn) made into `onBusy`'s value; its other failures stay. */
export const whenBusy =
  <B>(onBusy: (busy: Busy) => B) =>
  <A, E, R>(effect: Effect.Effect<A, E | Busy, R>): Effect.Effect<A | B, Exclude<E, Busy>, R> =>
    Effect.catchIf(
      effect,
      (e): e is Busy => e instanceof Busy,
      (busy) => Effect.succeed(onBusy(busy))
    ) as Effect.Effect<A | B, Exclude<E, Busy>, R>

/** The answer to a request that got no turn. */
export const busyResponse = (busy: Busy) => problem(503, busy.message, { "retry-after": String(busy.retryAfterSeconds) })

/** Middleware: every request the application answers takes its turn (but those of WITHOUT_TURNS). */
export const takeTurns = Effect.gen(function* () {
  const share = yield* FairShare
  const config = yield* ApiConfig
  return <E, R>(
    httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const query = request.url.indexOf("?")
      if (WITHOUT_TURNS.has(query === -1 ? request.url : request.url.slice(0, query))) return httpEffect
      return share.run(clientAddress(request, config.trustProxy), httpEffect).pipe(whenBusy(busyResponse)) as Effect.Effect<
        HttpServerResponse.HttpServerResponse,
        E,
        R
      >
    })
})
