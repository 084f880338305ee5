/**
 * A TCP proxy in front of PostgreSQL that counts what its clients send, by
 * message of the wire protocol: statements (Execute, or a simple Query) and
 * round trips (Sync, or a simple Query: each waits for ReadyForQuery). The API
 * benchmark puts one in front of a server for an untimed run, to show what a
 * vote costs the database besides its time. Not in the timed runs: the proxy
 * runs in the benchmark's own event loop.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net"

export interface WireCounts {
  /** Execute messages and simple queries. */
  statements: number
  /** Syncs and simple queries: one wait for the server each. */
  roundTrips: number
}

const SSL_REQUEST = 80877103
const GSS_REQUEST = 80877104

/** Follows one client's stream: the untyped startup messages first, then typed messages. */
const counter = (counts: WireCounts) => {
  let pending: Buffer = Buffer.alloc(0)
  let started = false
  return (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    let at = 0
    for (;;) {
      if (!started) {
        if (pending.length - at < 8) break
        const length = pending.readInt32BE(at)
        if (pending.length - at < length) break
        const code = pending.readInt32BE(at + 4)
        // An encryption request is answered with one byte; the startup message comes next.
        if (code !== SSL_REQUEST && code !== GSS_REQUEST) started = true
        at += length
        continue
      }
      if (pending.length - at < 5) break
      const length = pending.readInt32BE(at + 1)
      if (pending.length - at < length + 1) break
      const type = String.fromCharCode(pending[at]!)
      if (type === "E" || type === "Q") counts.statements++
      if (type === "S" || type === "Q") counts.roundTrips++
      at += length + 1
    }
    pending = pending.subarray(at)
  }
}

/** A counting proxy to `upstream` on a free port: its URL for `database`, its counts, and a close. */
export const startWireCounter = (upstream: { readonly host: string; readonly port: number }, database: string) =>
  new Promise<{ readonly url: string; readonly counts: WireCounts; readonly close: () => Promise<void> }>((ready) => {
    const counts: WireCounts = { statements: 0, roundTrips: 0 }
    const sockets = new Set<Socket>()
    const server: Server = createServer((client) => {
      const remote = createConnection(upstream)
      sockets.add(client).add(remote)
      const count = counter(counts)
      client.on("data", count)
      client.pipe(remote)
      remote.pipe(client)
      const close = () => {
        client.destroy()
        remote.destroy()
        sockets.delete(client)
        sockets.delete(remote)
      }
      client.on("error", close).on("close", close)
      remote.on("error", close).on("close", close)
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      ready({
        url: `postgres://postgres@127.0.0.1:${port}/${database}`,
        counts,
        close: () =>
          new Promise((done) => {
            server.close(() => done())
            for (const socket of sockets) socket.destroy()
          })
      })
    })
  })
