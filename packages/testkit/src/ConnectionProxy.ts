/**
 * Test support: a TCP proxy in front of a database (a server's port, or the
 * embedded store's socket) that a test can cut, to see what a process does when
 * its database connections die under it. Cutting destroys every connection
 * through the proxy at once, the way a database restart or a network fault
 * does; new connections are let through again straight after.
 */
import { Effect } from "effect"
import { createConnection, createServer, type NetConnectOpts, type Socket } from "node:net"

export interface ConnectionProxy {
  /** A `postgres://` URL that reaches the upstream through the proxy. */
  readonly url: string
  /** Destroys every live connection through the proxy; answers how many there were. */
  readonly cut: Effect.Effect<number>
  /** Refuses new connections (they are closed on arrival) until `resume`. */
  readonly pause: Effect.Effect<void>
  readonly resume: Effect.Effect<void>
}

/**
 * A proxy to `upstream` on a free port of 127.0.0.1, closed with the scope.
 * `database` names the database in the URL (and `user` its role).
 */
export const make = (upstream: NetConnectOpts, options: { readonly database: string; readonly user?: string }) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly proxy: ConnectionProxy; readonly close: () => void }>((resume) => {
      const live = new Set<readonly [Socket, Socket]>()
      let paused = false
      const server = createServer((client) => {
        if (paused) {
          client.destroy()
          return
        }
        const remote = createConnection(upstream)
        const pair = [client, remote] as const
        live.add(pair)
        const forget = () => {
          live.delete(pair)
          client.destroy()
          remote.destroy()
        }
        client.on("error", forget).on("close", forget)
        remote.on("error", forget).on("close", forget)
        client.pipe(remote)
        remote.pipe(client)
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        const url = `postgres://${options.user ?? "postgres"}@127.0.0.1:${port}/${options.database}`
        const cut = Effect.sync(() => {
          const count = live.size
          for (const [client, remote] of live) {
            client.destroy()
            remote.destroy()
          }
          live.clear()
          return count
        })
        resume(
          Effect.succeed({
            url,
            proxy: {
              url,
              cut,
              pause: Effect.sync(() => {
                paused = true
              }),
              resume: Effect.sync(() => {
                paused = false
              })
            },
            close: () => {
              for (const [client, remote] of live) {
                client.destroy()
                remote.destroy()
              }
              server.close()
            }
          })
        )
      })
    }),
    ({ close }) => Effect.sync(close)
  ).pipe(Effect.map(({ proxy }) => proxy))
