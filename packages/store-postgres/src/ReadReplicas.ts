/**
 * Reads from streaming replicas (DATABASE_READ_URL; docs/operations.md, "Replicas"). The product
 * reads, lists and searches go to a replica; everything else (votes, registrations, imports, the
 * jobs, and every transaction) stays on the primary, through the layer's own SqlClient.
 *
 * Fresh as the primary, as far as anyone can tell: a read goes to a replica only once that replica
 * has replayed every change the change feed has told of what it reads (readPositions.ts), else to
 * the primary. Each replica's replay position is asked every CHECK_INTERVAL; a position known a
 * moment ago is a lower bound of the one now (replay only moves forward), so routing on it is safe.
 *
 * A replica whose check fails or does not answer within CHECK_TIMEOUT, or that fails a read with a
 * connection error, is skipped until a check answers again; the reads it still had are read again on
 * the primary at that moment, so no request fails because a replica is down, and none waits on a
 * vanished host longer than the check does. The check has a connection of its own: on the reads'
 * shared (pipelined) connections it would queue behind slow reads, and a busy replica is not a down
 * one. A failed statement (a search cancelled by a conflict with replay, say) is read again on the
 * primary. A server that is not in recovery (a promoted replica, or a primary by mistake) gets no
 * reads: its data may have left the primary's.
 */
import { PgClient } from "@effect/sql-pg"
import { Cause, Clock, Context, Deferred, Duration, Effect, Layer, Option, type Redacted, Schedule } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { ProductChanges } from "@productdir/domain"
import { FeedPositions } from "./ChangeFeed.ts"
import { describeServer } from "./connect.ts"
import type { Needed } from "./readPositions.ts"

/** How often each replica's replay position is asked. */
export const CHECK_INTERVAL = Duration.millis(100)
/**
 * A replica that does not answer its check within this is skipped until it does, and its reads in
 * flight are read on the primary. A trivial statement on a connection of its own: only a server
 * that is gone, or starved for seconds, misses it.
 */
export const CHECK_TIMEOUT = Duration.seconds(2)
/** Opening a connection to a replica (a host that is gone drops packets: no refusal comes). */
const CONNECT_TIMEOUT = Duration.seconds(2)

/** One database server as /readyz reports it. */
export interface ServerStatus {
  readonly role: "primary" | "replica"
  /** host:port/database, never a password. */
  readonly server: string
  readonly reachable: boolean
  /** Whether reads are sent to it now (a replica that answers and is a standby). */
  readonly serving?: boolean
  /** Why it is not reachable, or not serving. */
  readonly detail?: string
}

/** A read: statements on the client it is handed, which is the primary's or a replica's. */
export type Read<A> = (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>

export class ReadRouter extends Context.Service<
  ReadRouter,
  {
    /**
     * A read of one product, by `ref` (its id, canonical, or its slug). `again` says when a replica's
     * answer should be asked of the primary too (nothing found: the product may be newer than the feed).
     */
    readonly product: <A>(ref: string, isId: boolean, read: Read<A>, again?: (answer: A) => boolean) => Effect.Effect<A, SqlError>
    /** A read of many products: a list, a search, the categories. */
    readonly many: <A>(read: Read<A>) => Effect.Effect<A, SqlError>
    /** `slug` names product `id` (learnt from what a read found). */
    readonly learn: (id: string, slug: string) => void
    /** The primary's name (none for the embedded store) and the replicas' states, as a check last found them. */
    readonly servers: () => { readonly primary: string | undefined; readonly replicas: ReadonlyArray<ServerStatus> }
  }
>()("@productdir/store-postgres/ReadRouter") {}

/** No replicas: every read on the layer's client. `primary` names a server for /readyz (the embedded store has none). */
export const layerPrimary = (primary: string | undefined) =>
  Layer.effect(
    ReadRouter,
    Effect.map(SqlClient.SqlClient, (sql) =>
      ReadRouter.of({
        product: (_ref, _isId, read) => read(sql),
        many: (read) => read(sql),
        learn: () => undefined,
        servers: () => ({ primary, replicas: [] })
      })
    )
  )

interface Replica {
  readonly name: string
  /** The reads' pool. */
  readonly client: PgClient.PgClient
  /** The checks' own connection. */
  readonly checker: PgClient.PgClient
  /** Completed when the replica is found down: the reads on it go to the primary. Renewed when it serves again. */
  lost: Deferred.Deferred<void>
  reachable: boolean
  /** A standby that answers: reads may go to it. */
  serving: boolean
  /** Replayed up to here (bytes), as the last check found. */
  replayed: bigint
  detail: string | undefined
}

export interface ReplicaOptions {
  readonly maxConnections: number
  readonly startupParameters: Readonly<Record<string, string>>
}

const replayQuery = (sql: SqlClient.SqlClient) =>
  sql<{ lsn: string | null }>`SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::text AS lsn`

/**
 * A failure with what lies under it: "PgConnection: Failed to connect: connect ECONNREFUSED 127.0.0.1:5433", or
 * `database "x" does not exist`, so a typo in a replica's URL does not read as an outage forever.
 */
const failureOf = (cause: Cause.Cause<unknown>): string => {
  const messages: Array<string> = []
  let error: unknown = Cause.squash(cause)
  for (let depth = 0; depth < 6 && typeof error === "object" && error !== null; depth++) {
    const message = (error as { readonly message?: unknown }).message
    if (typeof message === "string" && message !== "" && !messages.includes(message)) messages.push(message)
    error = (error as { readonly cause?: unknown }).cause
  }
  return messages.length > 0 ? messages.join(": ") : String(error)
}

const NOT_CHECKED = "not checked yet"

/**
 * Reads on the replicas of `urls` when they have what the feed told (FeedPositions: the primary's
 * layer tracks positions), else on the layer's client. `primary` names the primary for /readyz.
 */
export const layer = (primary: string, urls: ReadonlyArray<Redacted.Redacted>, options: ReplicaOptions) =>
  Layer.effect(
    ReadRouter,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const positions = yield* FeedPositions
      const replicas: Array<Replica> = []
      for (const url of urls) {
        // Pools open connections as reads need them: a replica that is down now does not stop the start.
        const pool = (maxConnections: number, multiplex: boolean) =>
          PgClient.make({
            url,
            maxConnections,
            multiplex,
            connectTimeout: CONNECT_TIMEOUT,
            startupParameters: options.startupParameters
          }).pipe(Effect.provideServiceEffect(Reactivity.Reactivity, Reactivity.make))
        replicas.push({
          name: describeServer(url),
          client: yield* pool(options.maxConnections, true),
          checker: yield* pool(1, false),
          lost: Deferred.makeUnsafe<void>(),
          reachable: false,
          serving: false,
          replayed: -1n,
          detail: NOT_CHECKED
        })
      }

      const down = (replica: Replica, detail: string) =>
        Effect.suspend(() => {
          // Said when it goes down, and at the first check: a replica down from the start is worth a line too.
          const said = replica.reachable || replica.detail === NOT_CHECKED
          replica.reachable = false
          replica.serving = false
          replica.detail = detail
          Deferred.doneUnsafe(replica.lost, Effect.void)
          return said ? Effect.logWarning(`replica ${replica.name} is not reachable (${detail}); its reads go to the primary`) : Effect.void
        })

      /** The replicas' least replay position: what every serving replica has, so no product needs tracking for it. */
      const caughtUp = () => {
        let least: bigint | undefined
        for (const r of replicas) if (r.serving && (least === undefined || r.replayed < least)) least = r.replayed
        if (least !== undefined) positions.replayed(least)
      }

      const check = (replica: Replica) =>
        Effect.gen(function* () {
          const answer = yield* Effect.exit(replayQuery(replica.checker).pipe(Effect.timeoutOption(CHECK_TIMEOUT)))
          if (answer._tag === "Failure") return yield* down(replica, failureOf(answer.cause))
          if (Option.isNone(answer.value)) return yield* down(replica, `no answer within ${Duration.format(CHECK_TIMEOUT)}`)
          const lsn = answer.value.value[0]?.lsn ?? null
          const was = { reachable: replica.reachable, serving: replica.serving }
          replica.reachable = true
          if (lsn === null) {
            replica.serving = false
            replica.detail = "not a standby (not in recovery): no reads are sent to it"
            if (was.serving || !was.reachable) yield* Effect.logWarning(`replica ${replica.name} is ${replica.detail}`)
            return
          }
          const replayed = BigInt(lsn)
          if (replayed > replica.replayed || !was.serving) replica.replayed = replayed
          if (!was.serving) replica.lost = Deferred.makeUnsafe<void>()
          replica.serving = true
          replica.detail = undefined
          if (!was.serving) yield* Effect.logInfo(`replica ${replica.name} is serving reads`)
          caughtUp()
        })

      for (const replica of replicas) {
        yield* Effect.forkScoped(Effect.repeat(check(replica), Schedule.spaced(CHECK_INTERVAL)))
      }
      // The positions come from the feed's polls, which run while someone listens: the router does.
      yield* (yield* ProductChanges).subscribe(() => undefined)

      let turn = 0
      /** A serving replica that has replayed what `needed` says, in turn; undefined: the primary. */
      const pick = (needed: Needed): Replica | undefined => {
        if (needed === "primary") return undefined
        for (let i = 0; i < replicas.length; i++) {
          const replica = replicas[(turn + i) % replicas.length]!
          if (replica.serving && replica.replayed >= needed) {
            turn = (turn + i + 1) % replicas.length
            return replica
          }
        }
        return undefined
      }

      const on = <A>(replica: Replica | undefined, read: Read<A>, again?: (answer: A) => boolean): Effect.Effect<A, SqlError> =>
        replica === undefined
          ? read(sql)
          : Effect.gen(function* () {
              // The read, unless the replica is found down first (then it is cut, and read on the primary).
              const answer = yield* Effect.raceFirst(
                Effect.map(Effect.exit(read(replica.client)), Option.some),
                Effect.as(Deferred.await(replica.lost), Option.none())
              )
              if (Option.isNone(answer)) return yield* read(sql)
              const exit = answer.value
              if (exit._tag === "Failure") {
                if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.failCause(exit.cause)
                // A statement the replica refused (a conflict with its replay, say) is no sign it is down.
                const error = Cause.squash(exit.cause)
                const connection =
                  typeof error === "object" && error !== null && "reason" in error && (error as SqlError).reason._tag === "ConnectionError"
                if (connection) yield* down(replica, failureOf(exit.cause))
                return yield* read(sql)
              }
              return again?.(exit.value) === true ? yield* read(sql) : exit.value
            })

      return ReadRouter.of({
        product: (ref, isId, read, again) => Effect.suspend(() => on(pick(positions.forProduct(ref, isId)), read, again)),
        many: (read) => Effect.flatMap(Clock.currentTimeMillis, (now) => on(pick(positions.forAny(now)), read)),
        learn: (id, slug) => positions.learn(id, slug),
        servers: () => ({
          primary,
          replicas: replicas.map(
            (r): ServerStatus => ({
              role: "replica",
              server: r.name,
              reachable: r.reachable,
              serving: r.serving,
              ...(r.detail === undefined ? {} : { detail: r.detail })
            })
          )
        })
      })
    })
  )
