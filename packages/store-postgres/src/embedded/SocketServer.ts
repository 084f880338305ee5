/**
 * The owner's embedded database, served to local clients (the import and
 * reconcile CLIs) on a Unix socket in the data directory, so they work beside
 * a running API instead of opening the directory a second time. Every socket
 * connection is a connection of the shared session (PgliteSession.ts).
 *
 * The socket is private to the user (mode 0600): PGlite accepts any login.
 */
import { Effect, type Scope } from "effect"
import { createHash } from "node:crypto"
import { chmodSync, rmSync } from "node:fs"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FrontendFramer } from "./FrontendMessages.ts"
import type { PgliteSession } from "./PgliteSession.ts"

/** The name PostgreSQL's own clients look for in a socket directory. */
export const SOCKET_NAME = ".s.PGSQL.5432"

/** A client holding the session without sending anything is cut off after this long. */
export const IDLE_HOLD_TIMEOUT_MS = 15_000

/** Unix socket paths are limited to about 104 bytes; a deeper data directory gets one in the temp directory. */
const MAX_SOCKET_PATH = 100

export const socketPathFor = (dataDir: string): string => {
  const inside = join(dataDir, SOCKET_NAME)
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return inside
  const hash = createHash("sha256").update(dataDir).digest("hex").slice(0, 16)
  return join(tmpdir(), `productdir-${hash}${SOCKET_NAME}`)
}

const serveConnection = (session: PgliteSession, socket: Socket) => {
  const framer = new FrontendFramer()
  const connection = session.connect({ idleTimeoutMs: IDLE_HOLD_TIMEOUT_MS, onIdleTimeout: () => socket.destroy(), foreign: true })
  let work: Promise<void> = Promise.resolve()
  // A copy: PGlite hands out views of its own memory, which it reuses for the next bytes, while a socket
  // that cannot take a large answer at once keeps the view queued (the answer would arrive garbled).
  const write = (data: Uint8Array) => {
    if (!socket.destroyed) socket.write(Buffer.from(data))
  }
  socket.on("data", (chunk: Buffer) => {
    for (const message of framer.push(chunk)) {
      work = work
        .then(async () => {
          switch (message._tag) {
            case "EncryptionRequest":
              return write(Buffer.from("N"))
            case "CancelRequest":
              return void socket.end()
            case "Terminate":
              await connection.close()
              return void socket.end()
            case "Message":
              return connection.send(message.bytes, message.type, write)
          }
        })
        .catch(() => void socket.destroy())
    }
  })
  socket.on("error", () => undefined)
  socket.on("close", () => {
    work = work.then(() => connection.close())
  })
}

/** Serves `session` at `path` until the scope closes. A stale socket file of a dead owner is replaced. */
export const serve = (session: PgliteSession, path: string): Effect.Effect<void, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: Server; readonly sockets: Set<Socket> }, Error>((resume) => {
      // Only the owner gets here (it holds the directory's lock), so a socket file left behind is stale.
      rmSync(path, { force: true })
      const sockets = new Set<Socket>()
      const server = createServer((socket) => {
        sockets.add(socket)
        socket.once("close", () => sockets.delete(socket))
        serveConnection(session, socket)
      })
      server.once("error", (error) => resume(Effect.fail(error)))
      server.listen(path, () => {
        chmodSync(path, 0o600)
        resume(Effect.succeed({ server, sockets }))
      })
    }),
    ({ server, sockets }) =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        // Clients still connected are cut off; their open transactions are rolled back as they close.
        for (const socket of sockets) socket.destroy()
        rmSync(path, { force: true })
      })
  ).pipe(Effect.asVoid)
