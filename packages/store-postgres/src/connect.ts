/**
 * Waiting for PostgreSQL at start. A process manager often starts the API and
 * the database together, so a server that is not reachable yet is retried with
 * backoff for STORE_CONNECT_TIMEOUT seconds, one log line per attempt saying what
 * is wrong; then the start fails with one clear line. Failures that waiting
 * cannot fix (a wrong password, a missing database) fail at once.
 */
import { PgClient } from "@effect/sql-pg"
import { Clock, Config, Duration, Effect, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { StoreError } from "@productdir/domain"

export const ConnectConfig = Config.schema(
  Schema.NumberFromString.check(
    Schema.isFinite({ message: "must be a number of seconds" }),
    Schema.isGreaterThanOrEqualTo(0, { message: "must be a number of seconds, 0 or more" })
  ),
  "STORE_CONNECT_TIMEOUT"
).pipe(
  Config.withDefault(30),
  Config.map((seconds) => Duration.seconds(seconds))
)

/** host:port/database of a URL, never its password. */
export const describeServer = (url: Redacted.Redacted): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    return `${parsed.hostname || "localhost"}:${parsed.port || "5432"}${parsed.pathname}`
  } catch {
    return "DATABASE_URL (not a valid URL)"
  }
}

const probe = (url: Redacted.Redacted) =>
  SqlClient.SqlClient.use((sql) => sql`SELECT 1`).pipe(
    Effect.provide(PgClient.layer({ url, maxConnections: 1, connectTimeout: Duration.seconds(5) }))
  )

/**
 * What the server (or the network) said, which the driver's own message ("Failed to connect") hides:
 * `database "shop" does not exist`, `role "app" does not exist`, `connect ECONNREFUSED 127.0.0.1:5432`.
 */
const reasonOf = (error: { readonly message: string; readonly reason: { readonly cause?: unknown } } | undefined): string => {
  const cause = error?.reason.cause
  const said = cause instanceof Error && cause.message !== "" ? cause.message : undefined
  return said ?? error?.message ?? "the connection failed"
}

const FIRST_DELAY = 250
const MAX_DELAY = 4_000

export const awaitServer = Effect.fn("awaitServer")(function* (url: Redacted.Redacted, within: Duration.Duration) {
  const where = describeServer(url)
  const started = yield* Clock.currentTimeMillis
  let delay = FIRST_DELAY
  for (let attempt = 1; ; attempt++) {
    const outcome = yield* Effect.exit(probe(url))
    if (outcome._tag === "Success") return
    const failure = outcome.cause.reasons.find((r) => r._tag === "Fail")
    const error = failure?._tag === "Fail" ? failure.error : undefined
    const reason = reasonOf(error)
    const waitable = error?.reason._tag === "ConnectionError"
    const elapsed = (yield* Clock.currentTimeMillis) - started
    if (!waitable) {
      return yield* new StoreError({ operation: "connect", detail: `PostgreSQL at ${where} refused us: ${reason}` })
    }
    if (elapsed + delay > Duration.toMillis(within)) {
      return yield* new StoreError({
        operation: "connect",
        detail: `PostgreSQL at ${where} is not reachable (${reason}); gave up after ${Math.round(elapsed / 1000)} s (STORE_CONNECT_TIMEOUT)`
      })
    }
    yield* Effect.logWarning(`PostgreSQL at ${where} is not reachable (${reason}); attempt ${attempt}, next in ${delay} ms`)
    yield* Effect.sleep(Duration.millis(delay))
    delay = Math.min(delay * 2, MAX_DELAY)
  }
})
