/**
 * ProductChanges on PostgreSQL (and embedded PGlite): how every API process on
 * one database learns, within a poll, that a product changed.
 *
 * Every write of a product row stamps it with its transaction id
 * (`products.changed_xid`, a trigger: migration 3), so the feed is a query, not
 * a stream of messages: every POLL_INTERVAL, the products stamped at or after a
 * watermark. The watermark is the oldest transaction still running at the last
 * poll (`pg_snapshot_xmin`): everything older has committed or aborted, so no
 * change can commit behind it unseen. There is no notification per vote (a
 * `pg_notify` in the vote's transaction serialises commits), nothing to fall
 * behind, and a poll after the database restarts reads what changed meanwhile;
 * still, after any failed poll the feed says `Everything`, because a restored
 * backup can move transaction ids back.
 *
 * Changes this process makes are told at once, as their transaction commits
 * (read your writes); the poll would tell them again, so a vote hands over the
 * id its transaction stamped and the poll skips it.
 *
 * With read replicas (ReadReplicas.ts) each poll also takes the primary's WAL
 * position, and the feed keeps, beside what it tells, the position a replica
 * must have replayed to have each change (readPositions.ts).
 */
import { Clock, Context, Duration, Effect, type Fiber, Layer, Metric, Schedule, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { everythingChanged, type ProductChange, ProductChanges, type ProductId, productsChanged } from "@productdir/domain"
import { ChangeFeedPolledAt } from "./feedMetrics.ts"
import { ReadPositions } from "./readPositions.ts"

/** How often other processes' changes are looked for: a change is seen everywhere within this (plus a query). */
export const POLL_INTERVAL = Duration.millis(250)

/** A product change made in this process, with the transaction id it was stamped with when known. */
export interface LocalChange {
  readonly id: string
  readonly xid?: string | undefined
}

/** How the SQL stores tell the feed of the changes they commit. */
export class Announcer extends Context.Service<
  Announcer,
  {
    readonly announce: (changes: ReadonlyArray<LocalChange>) => Effect.Effect<void>
  }
>()("@productdir/store-postgres/Announcer") {}

/** The WAL positions of the feed's changes, for the read replicas: kept only when a layer asks (layerTracking). */
export class FeedPositions extends Context.Service<FeedPositions, ReadPositions>()("@productdir/store-postgres/FeedPositions") {}

interface Poll {
  readonly xmin: string
  /** The primary's WAL insert position as the poll ran (bytes), when positions are tracked. */
  readonly position: bigint | undefined
  readonly rows: ReadonlyArray<{ readonly id: string; readonly xid: string; readonly slug: string }>
}

/**
 * The insert position, not the write position: with synchronous_commit off a commit is visible before
 * its WAL is written, and the insert position is past it all the same. Less 24 bytes: at a page
 * boundary the insert position points past the next page's header (24 bytes), where no replay
 * ends until more WAL comes, and an idle primary may write none for a while. Nothing is lost by it:
 * a replica's replay position is the end of a record, and a commit record is longer than 24 bytes,
 * so a replica within 24 bytes of the position has replayed every commit before it.
 */
const POSITION = "(pg_current_wal_insert_lsn() - '0/0'::pg_lsn - 24)::text"

const make = (positions: ReadPositions | undefined) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const layerScope = yield* Effect.scope
    const listeners = new Set<(change: ProductChange) => void>()
    // Product id -> the stamp last told, for stamps at or after the watermark: each change is told once.
    const told = new Map<string, bigint>()
    let poller: Fiber.Fiber<unknown> | undefined

    const tell = (change: ProductChange) => {
      for (const listener of listeners) listener(change)
    }

    const tellProducts = (ids: ReadonlyArray<string>) => {
      if (ids.length > 0) tell(productsChanged(ids as ReadonlyArray<ProductId>))
    }

    const position = sql.literal(positions === undefined ? "NULL::text" : POSITION)

    const poll = (watermark: string | undefined) =>
      Effect.map(
        watermark === undefined
          ? sql<{ xmin: string; lsn: string | null; id: null; xid: null; slug: null }>`
            SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, ${position} AS lsn, NULL AS id, NULL AS xid, NULL AS slug`
          : sql<{ xmin: string; lsn: string | null; id: string | null; xid: string | null; slug: string | null }>`
            SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, ${position} AS lsn,
                   p.id::text AS id, p.changed_xid::text AS xid, p.slug
            FROM (SELECT 1) AS once LEFT JOIN products p ON p.changed_xid >= ${watermark}::xid8`,
        (rows): Poll => ({
          xmin: rows[0]!.xmin,
          position: rows[0]!.lsn === null ? undefined : BigInt(rows[0]!.lsn),
          rows: rows.flatMap((r) => (r.id === null || r.xid === null || r.slug === null ? [] : [{ id: r.id, xid: r.xid, slug: r.slug }]))
        })
      )

    /** A poll from `watermark` (undefined: a first one), with the mark the positions need. */
    const placedPoll = (watermark: string | undefined) =>
      Effect.gen(function* () {
        const mark = positions?.pollStarting() ?? 0
        const answer = yield* poll(watermark)
        return { answer, mark, now: yield* Clock.currentTimeMillis }
      })

    /** Starts over from a first poll: its xmin is the watermark, and everything before its position is placed. */
    const startOver = ({ answer, mark, now }: { answer: Poll; mark: number; now: number }) => {
      if (positions !== undefined && answer.position !== undefined) positions.startOver(mark, answer.position, now)
      return answer.xmin
    }

    /** One poll from `watermark`: tells what changed, answers the next watermark. */
    const step = (watermark: string) =>
      Effect.map(placedPoll(watermark), ({ answer: { rows, xmin, position }, mark, now }) => {
        const changed: Array<string> = []
        for (const { id, xid } of rows) {
          const stamp = BigInt(xid)
          if (told.get(id) === stamp) continue
          told.set(id, stamp)
          changed.push(id)
        }
        const next = BigInt(xmin)
        for (const [id, stamp] of told) if (stamp < next) told.delete(id)
        // Placed before they are told: a read a listener starts must already find what it needs.
        if (positions !== undefined && position !== undefined) positions.polled(mark, position, changed, rows, now)
        tellProducts(changed)
        return xmin
      })

    const loop = (start: string | undefined) =>
      Effect.gen(function* () {
        let watermark = start
        for (;;) {
          yield* Effect.sleep(POLL_INTERVAL)
          const began = yield* Clock.currentTimeMillis
          if (watermark === undefined) {
            // (Re)start: a new watermark, then drop every copy made while changes could not be seen.
            const restart = yield* Effect.result(placedPoll(undefined))
            if (restart._tag === "Failure") continue
            yield* Metric.update(ChangeFeedPolledAt, began / 1000)
            watermark = startOver(restart.success)
            told.clear()
            tell(everythingChanged)
            yield* Effect.logInfo("change feed: polling again; every cached read was dropped")
            continue
          }
          const next = yield* Effect.result(step(watermark))
          if (next._tag === "Success") {
            watermark = next.success
            yield* Metric.update(ChangeFeedPolledAt, began / 1000)
          } else {
            yield* Effect.logWarning("change feed: a poll failed; retrying, and cached reads will be dropped when it works", next.failure)
            watermark = undefined
          }
        }
      })

    const announce = (changes: ReadonlyArray<LocalChange>) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        for (const { id, xid } of changes) if (xid !== undefined) told.set(id, BigInt(xid))
        const ids = changes.map((c) => c.id)
        positions?.announced(ids, now)
        tellProducts(ids)
      })

    const subscribe = (listener: (change: ProductChange) => void): Effect.Effect<void, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.gen(function* () {
          listeners.add(listener)
          if (poller !== undefined) return
          // The first watermark is taken before the subscriber keeps anything: no change can slip in between.
          const first = yield* Effect.result(placedPoll(undefined))
          poller = yield* Effect.forkIn(
            loop(first._tag === "Success" ? startOver(first.success) : undefined).pipe(Effect.retry(Schedule.spaced(POLL_INTERVAL))),
            layerScope
          )
        }),
        () => Effect.sync(() => void listeners.delete(listener))
      )

    return Context.make(ProductChanges, ProductChanges.of({ subscribe })).pipe(Context.add(Announcer, Announcer.of({ announce })))
  })

/** The feed and its announcer, over the layer's SqlClient. */
export const layer = Layer.effectContext(make(undefined))

/** The feed, its announcer and the WAL positions of its changes (FeedPositions): for a primary with read replicas. */
export const layerTracking = Layer.effectContext(
  Effect.gen(function* () {
    const positions = new ReadPositions()
    return Context.add(yield* make(positions), FeedPositions, positions)
  })
)
