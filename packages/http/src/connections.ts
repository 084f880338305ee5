/**
 * The server's connections, as a client sees them:
 * - no client address holds more than HTTP_MAX_CONNECTIONS_PER_ADDRESS of them
 *   (an IPv6 client by its /64, as a voter is), and no wider network of it more
 *   than a few times that (WIDER): one address, or the many /64s of one /48,
 *   holding sockets open cannot take the whole HTTP_MAX_CONNECTIONS from everyone
 *   else. A connection over a cap is answered, not cut: its request gets a 503 with
 *   Retry-After that says why (requestListener.ts), and it is closed then, or after a
 *   short wait for its request, so that a client cannot tell a cap from a crash only by
 *   its resets; past OVERFLOW times the cap, a network's further connections are cut;
 * - at shutdown the server stops accepting connections and leaves the open ones
 *   to finish: a request written to an open connection is answered (draining
 *   responses carry `Connection: close`), an idle keep-alive connection ends at
 *   its keep-alive timeout, as its client was told it would. Node's own close
 *   also cuts idle connections at once, which resets the requests their clients
 *   are writing at that moment; that is what this avoids.
 */
import { Context, Duration, Effect } from "effect"
import type { Server } from "node:http"
import { Server as NetServer, type Socket } from "node:net"
import { networksOf } from "@productdir/usecases"

export class Connections extends Context.Service<
  Connections,
  {
    /** Connections open now. */
    readonly open: () => number
    /** Whether `socket` is over its network's cap: its request is answered 503 (requestListener.ts), and it closes. */
    readonly overCap: (socket: Socket) => boolean
    /**
     * Stops accepting connections; completes when the last open one has closed, or after
     * `grace`, when the ones still open are cut.
     */
    readonly drain: (grace: Duration.Duration) => Effect.Effect<void>
  }
>()("@productdir/http/Connections") {}

/**
 * The cap of each level of a client's networks (usecases' networksOf: an IPv6 /64, /56, /48, /32; an IPv4
 * address, /24, /16), as a multiple of the per-address cap. With one cap on the /64 alone, the 8 /64s of one
 * free /48 would hold every connection (at the defaults, 1,024 = 8 × 128); with these a /48 holds 4 × 128, and locking
 * others out takes networks of 2 /48s (tunnel accounts) or 2 IPv4 /24s, which a proxy's limits in front are for.
 */
const WIDER: ReadonlyArray<number> = [1, 2, 4, 8]

/** Connections over its cap a network may have answered at once (each for a moment), as a multiple of the cap. */
const OVERFLOW = 4

/** How long a connection over its cap waits for its request before it is closed. */
const OVER_CAP_WAIT_MS = 2_000

export interface ConnectionLimits {
  /** Connections one client network may hold at once; 0 for no limit of its own. */
  readonly perAddress: number
  /**
   * Connections the server holds at most (HTTP_MAX_CONNECTIONS; 0: no limit). Connections over a network's cap are
   * answered only while the server holds fewer than half of these in all: they must not take the places of others.
   */
  readonly max: number
}

/** Watches `server`'s connections from now on and applies `limits` to them. */
export const watch = (server: Server, limits: ConnectionLimits) => {
  const sockets = new Set<Socket>()
  const perNetwork = new Map<string, number>()
  /** Connections over their network's cap, answered 503 as their request comes; and how many each network has. */
  const over = new WeakSet<Socket>()
  const overPerNetwork = new Map<string, number>()
  let overInAll = 0

  server.on("connection", (socket: Socket) => {
    const networks = limits.perAddress > 0 ? networksOf(socket.remoteAddress ?? "").map((n) => n.prefix) : []
    if (networks.some((network, level) => (perNetwork.get(network) ?? 0) >= limits.perAddress * WIDER[level]!)) {
      const own = networks[0]!
      const overflowing = overPerNetwork.get(own) ?? 0
      if (overflowing >= limits.perAddress * OVERFLOW || (limits.max > 0 && sockets.size + overInAll >= limits.max / 2)) {
        socket.destroy()
        return
      }
      overPerNetwork.set(own, overflowing + 1)
      overInAll++
      over.add(socket)
      const timer = setTimeout(() => socket.destroy(), OVER_CAP_WAIT_MS)
      timer.unref()
      socket.once("close", () => {
        clearTimeout(timer)
        overInAll--
        const left = (overPerNetwork.get(own) ?? 1) - 1
        if (left === 0) overPerNetwork.delete(own)
        else overPerNetwork.set(own, left)
      })
      return
    }
    for (const network of networks) perNetwork.set(network, (perNetwork.get(network) ?? 0) + 1)
    sockets.add(socket)
    socket.once("close", () => {
      sockets.delete(socket)
      for (const network of networks) {
        const left = (perNetwork.get(network) ?? 1) - 1
        if (left === 0) perNetwork.delete(network)
        else perNetwork.set(network, left)
      }
    })
  })

  const drain = (grace: Duration.Duration) =>
    Effect.callback<void>((resume) => {
      if (!server.listening) return resume(Effect.void)
      // net.Server's close: no new connections, and its callback once the last open one has closed.
      // (http.Server's would also close the idle ones at once.)
      NetServer.prototype.close.call(server, () => resume(Effect.void))
    }).pipe(
      Effect.timeoutOrElse({
        duration: grace,
        // Said out loud: an operator sees that the grace, not the last answer, ended the drain.
        orElse: () =>
          Effect.andThen(
            Effect.logWarning(`shutting down: the grace of ${Duration.format(grace)} ran out; cutting ${sockets.size} open connection(s)`),
            Effect.sync(() => {
              for (const socket of sockets) socket.destroy()
            })
          )
      })
    )

  return Connections.of({ open: () => sockets.size, overCap: (socket) => over.has(socket), drain })
}
