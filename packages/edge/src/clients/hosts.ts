/**
 * Host names as the service judges them: the name of a `Host` header (its port dropped, an IPv6 literal
 * kept in brackets), and whether it names this machine. A loopback name can only be this machine's, so
 * a server may treat it as its own without PUBLIC_URL; any other name a client sends may be anyone's.
 */

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

/** The host name of a `Host` value (or of a URL's `host`), lower case, without its port. */
export const hostnameOf = (host: string): string =>
  (host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]!).toLowerCase()

/** The name is this machine's: `localhost`, 127.0.0.1 or ::1. */
export const isLoopbackName = (name: string): boolean => LOOPBACK_NAMES.has(name)

/** A HOST setting (the address the server listens on) that only this machine can reach. */
export const isLoopbackHost = (host: string): boolean => isLoopbackName(host.toLowerCase()) || host.startsWith("127.")
