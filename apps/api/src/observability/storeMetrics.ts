/**
 * The database as the metrics see it, read when they are scraped (once per scrape, not per request).
 *
 * Connections: @effect/sql-pg 4.0 keeps its pool's state to itself (no count of connections in use
 * or of callers waiting for one), so the figures are the server's: `productdir_db_connections` by
 * `state` (`active`: running a statement, `idle in transaction`, `idle`) and
 * `productdir_db_connections_waiting` (waiting for a lock), from pg_stat_activity for this database:
 * every process on it, the other API processes and the CLIs included, and the scrape's own query
 * (one `active`: this process's connections are shared by its requests). Absent on the memory store,
 * and left as they were when the query fails.
 *
 * The change feed's lag, `productdir_change_feed_lag_seconds`: how long ago its last successful poll
 * began (store-postgres's feedMetrics.ts); a change committed since may not be served yet. Normally
 * under 250 ms plus a query; it grows while the database cannot be reached. Absent until the feed
 * has polled (the memory store has no feed).
 */
import { Clock, Duration, Effect, Metric } from "effect"
import { SqlClient } from "effect/sql"
import { ChangeFeedPolledAt } from "@productdir/store-postgres/feedMetrics"

const STATES = ["active", "idle", "idle in transaction", "idle in transaction (aborted)"] as const

const connections = (state: string) =>
  Metric.gauge("productdir_db_connections", {
    description: "Connections to this database by state (pg_stat_activity; every client of the database).",
    attributes: { state }
  })
const BY_STATE = new Map(STATES.map((state) => [state as string, connections(state)]))
const WAITING = Metric.gauge("productdir_db_connections_waiting", {
  description: "Connections to this database waiting for a lock (pg_stat_activity wait_event_type = 'Lock')."
})

interface Row {
  readonly state: string | null
  readonly waiting: boolean
  readonly count: number
}

/** Reads pg_stat_activity into the gauges; nothing on a store without SQL or when the read fails. */
export const refreshDatabaseGauges: Effect.Effect<void> = Effect.gen(function* () {
  const client = yield* Effect.serviceOption(SqlClient.SqlClient)
  if (client._tag === "None") return
  const sql = client.value
  const rows = yield* sql<Row>`
    SELECT state, wait_event_type = 'Lock' AS waiting, count(*)::int AS count
    FROM pg_stat_activity
    WHERE datname = current_database() AND backend_type = 'client backend'
    GROUP BY 1, 2`.pipe(Effect.timeout(Duration.seconds(2)), Effect.option)
  if (rows._tag === "None") return
  const counts = new Map<string, number>(STATES.map((state) => [state, 0]))
  let waiting = 0
  for (const row of rows.value) {
    if (row.state !== null && counts.has(row.state)) counts.set(row.state, (counts.get(row.state) ?? 0) + row.count)
    if (row.waiting) waiting += row.count
  }
  for (const [state, count] of counts) {
    const gauge = BY_STATE.get(state)
    if (gauge !== undefined) yield* Metric.update(gauge, count)
  }
  yield* Metric.update(WAITING, waiting)
}).pipe(Effect.withTracerEnabled(false))

const FEED_LAG = Metric.gauge("productdir_change_feed_lag_seconds", {
  description: "Seconds since the change feed's last successful poll began: how late a change from another process can be."
})

/** The feed's lag, from when it last polled; nothing before its first poll. */
export const refreshFeedLag: Effect.Effect<void> = Effect.gen(function* () {
  // From the registry's snapshot: reading the gauge itself would make it, at 0, where no feed runs.
  const polled = (yield* Metric.snapshot).find((metric) => metric.id === ChangeFeedPolledAt.id)
  const polledAt = polled?.type === "Gauge" ? Number(polled.state.value) : 0
  if (polledAt <= 0) return
  const now = (yield* Clock.currentTimeMillis) / 1000
  yield* Metric.update(FEED_LAG, Math.max(0, now - polledAt))
})
