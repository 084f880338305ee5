/**
 * Why the API could not start listening, in one line that says what to change: the failures an operator meets
 * at start (a port taken, a HOST that is not this machine's) are not bugs, and get no stack trace.
 */

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
