/**
 * Why the API could not start listening, in one line that says what to change: the failures an operator meets
 * at start (a port taken, a HOST that is not this machine's) are not bugs, and get no stack trace.
 */
import { Effect } from "effect"
import { HttpServerError } from "effect/http"
import { createServer } from "node:net"

interface ListenError {
  readonly code?: string
  readonly message?: string
  readonly address?: string
  readonly port?: number
  readonly hostname?: string
}

/** `what` (HOST:PORT, METRICS_PORT) could not be listened on, and what to do about it. */
export const listenFailureText = (cause: unknown, setting: "PORT" | "METRICS_PORT"): string => {
  const error = (typeof cause === "object" && cause !== null ? cause : {}) as ListenError
  const where = error.address !== undefined ? `${error.address}:${error.port ?? ""}` : (error.hostname ?? "the configured address")
  switch (error.code) {
    case "EADDRINUSE":
      return `cannot listen on ${where}: another process listens there. Stop it, or set ${setting} to a free port.`
    case "EACCES":
      return `cannot listen on ${where}: not allowed (a port under 1024 needs privileges). Set ${setting} to 1024 or above.`
    case "EADDRNOTAVAIL":
      return `cannot listen on ${where}: HOST is not an address of this machine. Set HOST to one of its addresses (127.0.0.1, or 0.0.0.0 for all).`
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return `cannot listen: HOST "${where}" names no address. Set HOST to an address of this machine (127.0.0.1, or 0.0.0.0 for all).`
    default:
      return `cannot listen on ${where}: ${error.message ?? String(cause)}.`
  }
}

/**
 * Fails with the error listening on `port` at `host` would meet, or succeeds having let go of it at once. Checked
 * before the store is opened: a second API started on a taken port would say so only after it had migrated and
 * seeded a new data directory, and leave that directory behind. The real listen later may still lose a race; it
 * says so too.
 */
export const listenable = (port: number, host: string) =>
  Effect.callback<void, HttpServerError.ServeError>((resume) => {
    if (port === 0) return resume(Effect.void)
    const probe = createServer()
    probe.once("error", (cause) => resume(Effect.fail(new HttpServerError.ServeError({ cause }))))
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resume(Effect.void)))
  })
