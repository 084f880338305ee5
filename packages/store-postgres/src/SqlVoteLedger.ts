/**
 * VoteLedger on PostgreSQL: the voter's standing, the ledger row, the counters
 * and the problem report are checked and moved in one transaction.
 */
import { Deferred, Effect, Exit, Layer, Option, Stream } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import { isSqlError } from "effect/sql/SqlError"
import {
  AgentRevoked,
  canonicalProductId,
  castAfterTaking,
  type CastVote,
  type CounterSnapshot,
  expectedWeighted,
  heldReason,
  isProductId,
  ledgerKey,
  type Limit,
  normalizeReason,
  type ProductId,
  ProductNotFound,
  ProductRemoved,
  RateLimits,
  type Repair,
  type StoreError,
  tidyReason,
  type LedgerFormation,
  type VoteCounting,
  type VoteDirection,
  VoteLedger,
  type VoteStatus,
  VOTE_WEIGHTS
} from "@productdir/domain"
import { storeError, toStoreError } from "./errors.ts"
import { activeLimits, decisionOf } from "./SqlRateLimits.ts"
import { recount } from "./recount.ts"
import { stamp } from "./writeTime.ts"
import { Announcer } from "./ChangeFeed.ts"
import { ReadRouter } from "./ReadReplicas.ts"
import { retryDeadlocks } from "./deadlocks.ts"

const FIRST_ID = "00000000-0000-0000-0000-000000000000"

type Count = bigint | number | string

/** What productdir_cast_votes answers of an item's cast (routines/sql/castVote.sql): the vote, decided there once, or why none. */
interface CastRow {
  readonly outcome: "cast" | "not_found" | "removed" | "agent_revoked" | "limited"
  readonly product_id: string | null
  readonly removed_at: Date | null
  readonly status: VoteStatus | null
  readonly counting: VoteCounting | null
  readonly trust_up: Count | null
  readonly trust_down: Count | null
  readonly xid: string | null
  /** The tokens the vote's budgets held before it drew on them (none when it drew on none). */
  readonly budget_keys: ReadonlyArray<string> | null
  readonly budget_tokens: ReadonlyArray<number> | null
  /** The product's weighted evidence after the vote, and what the vote weighs (thousandths of a vote). */
  readonly weight_up: Count | null
  readonly weight_down: Count | null
  readonly weight: number | null
}

/** One row of productdir_cast_votes: an item's rate limits (`allowed` or `limited`), or its cast. */
interface GroupRow extends Omit<CastRow, "outcome"> {
  readonly n: number
  readonly outcome: CastRow["outcome"] | "allowed"
  readonly limit_keys: ReadonlyArray<string> | null
  readonly limit_tokens: ReadonlyArray<number> | null
}

/** What one vote of a group got: the tokens its rate limits held, and its cast unless they refused it. */
interface ItemAnswer {
  readonly limitKeys: ReadonlyArray<string>
  readonly limitTokens: ReadonlyArray<number>
  readonly cast: CastRow | undefined
}

/** A vote waiting for the next call: productdir_cast_votes' item, and where its answer goes. */
interface Waiting {
  readonly item: { readonly limits: ReadonlyArray<Bucket>; readonly ballot: Record<string, unknown> }
  readonly answer: Deferred.Deferred<ItemAnswer, StoreError>
}

interface Bucket {
  readonly key: string
  readonly max: number
  readonly window_ms: number
}

/**
 * The most votes cast in one call. Past it the rest wait for the next call, which follows at once:
 * a bound on one statement's size and on how long its locks are held, not on throughput (64
 * connections never fill one).
 */
const MAX_GROUP = 256

type SnapshotRow = {
  id: string
  seed_up: Count
  seed_down: Count
  trust_up: Count
  trust_down: Count
  weight_up: Count
  weight_down: Count
  up: Count
  down: Count
  wup: Count
  wdown: Count
}

const toSnapshot = (r: SnapshotRow): CounterSnapshot => ({
  id: r.id as ProductId,
  seed: { up: Number(r.seed_up), down: Number(r.seed_down) },
  stored: { up: Number(r.trust_up), down: Number(r.trust_down) },
  ledger: { up: Number(r.up), down: Number(r.down) },
  storedWeighted: { up: Number(r.weight_up), down: Number(r.weight_down) },
  ledgerWeighted: { up: Number(r.wup), down: Number(r.wdown) }
})

/** A product's counted votes, counted and weighed, by direction (an aggregate of counted_votes). */
const COUNTED_SUMS = `count(*) FILTER (WHERE direction = 'up') AS up, count(*) FILTER (WHERE direction = 'down') AS down,
  coalesce(sum(weight) FILTER (WHERE direction = 'up'), 0) AS wup, coalesce(sum(weight) FILTER (WHERE direction = 'down'), 0) AS wdown`

export interface Options {
  /**
   * Read all snapshots with one streamed statement (a cursor on a connection of its own): one
   * aggregate over the ledger, the plan a server runs fastest. Needs a second connection for the
   * repairs, so the embedded store (one connection) reads batch by batch instead.
   */
  readonly streamSnapshots: boolean
  /**
   * The store's RateLimits keep their buckets in this database (SqlRateLimits): a vote within
   * limits takes them in its own statement. Otherwise (one process's buckets) it takes them first.
   */
  readonly limitsInDatabase: boolean
}

export const make = (options: Options) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient.PgClient
    const announcer = yield* Announcer
    const router = yield* ReadRouter

    const rateLimits = yield* RateLimits

    /** The buckets of `limits` as the routines take them. */
    const bucketsOf = (limits: ReadonlyArray<Limit>): ReadonlyArray<Bucket> =>
      limits.map((limit) => ({ key: limit.key, max: limit.max, window_ms: limit.windowSeconds * 1000 }))

    /** The vote as the routines' ballot: one jsonb object. */
    const ballot = (vote: CastVote, now: Date): Record<string, unknown> => {
      const reason = vote.direction === "down" && vote.reason !== undefined ? vote.reason : undefined
      const budgets = activeLimits(vote.budgets ?? [])
      return {
        ...(isProductId(vote.entity) ? { product_id: canonicalProductId(vote.entity) } : { slug: vote.entity }),
        voter: ledgerKey(vote.voter),
        ...(vote.voter._tag === "Agent" ? { agent_id: vote.voter.agentId } : {}),
        direction: vote.direction,
        at: now.toISOString(),
        ...(reason === undefined ? {} : { reason_key: normalizeReason(reason), reason_summary: tidyReason(reason) }),
        ...(vote.network === undefined ? {} : { network: vote.network }),
        ...(vote.guard === undefined
          ? {}
          : { guard: { floor: vote.guard.floor, factor: vote.guard.factor, reversal: vote.guard.reversal } }),
        ...(budgets.length === 0 ? {} : { budgets: bucketsOf(budgets) }),
        weights: VOTE_WEIGHTS
      }
    }

    /** The budgets' decision from the cast's row (tokens before the draw; a budget not drawn on was full). */
    const budgetDecision = (vote: CastVote, row: CastRow | undefined) =>
      decisionOf(activeLimits(vote.budgets ?? []), row?.budget_keys ?? [], row?.budget_tokens ?? [])

    /** What the cast's row says: the vote counted, or why not. Its change was announced with its group's. */
    const castResult = Effect.fnUntraced(function* (row: CastRow | undefined, vote: CastVote) {
      switch (row?.outcome) {
        case "agent_revoked":
          return yield* new AgentRevoked({ id: vote.voter._tag === "Agent" ? vote.voter.agentId : "" })
        case "removed":
          return yield* new ProductRemoved({ id: row.product_id!, removedAt: row.removed_at!.toISOString() })
        case "cast":
          break
        default:
          return yield* new ProductNotFound({ ref: vote.entity })
      }
      return {
        productId: row.product_id as ProductId,
        direction: vote.direction,
        status: row.status!,
        counting: row.counting!,
        counters: { up: Number(row.trust_up), down: Number(row.trust_down) },
        weighted: { up: Number(row.weight_up), down: Number(row.weight_down) },
        weight: row.weight!
      }
    })

    // Votes on one product are serial behind its row lock, and on the one connection the API shares
    // every vote is its own transaction and commit (one WAL flush), one after another. So the votes
    // that arrive while a call is in flight wait, and go together in the next call
    // (productdir_cast_votes): one transaction and one commit for all of them, one lock and one
    // write of the row for each product's, each vote with its own answer. A vote in a quiet moment
    // goes at once, alone. A storm's votes, which would wait on the product's lock anyway, wait here
    // instead, and its rate is no longer one commit per vote. The recount of the reconciliation job
    // takes the same row locks, so neither overwrites the other.
    const scope = yield* Effect.scope
    /** The votes waiting for the next call; undefined while no call is in flight. */
    let waiting: Array<Waiting> | undefined

    /** One call for the group; rows sorted out by item. Deadlocks (a racing revocation) retry the whole group. */
    const castGroup = (group: ReadonlyArray<Waiting>) =>
      sql<GroupRow>`SELECT * FROM productdir_cast_votes(${pg.json(group.map((w) => w.item))})`.pipe(
        retryDeadlocks,
        storeError("cast"),
        Effect.map((rows) => {
          // An item's limits row carries its buckets' tokens (none: '{}'); its cast row carries none.
          const answers = group.map((): { limitKeys: ReadonlyArray<string>; limitTokens: ReadonlyArray<number>; cast?: CastRow } => ({
            limitKeys: [],
            limitTokens: []
          }))
          for (const row of rows) {
            const answer = answers[row.n - 1]!
            if (row.limit_keys === null) answer.cast = row as CastRow
            else {
              answer.limitKeys = row.limit_keys
              answer.limitTokens = row.limit_tokens ?? []
            }
          }
          return answers.map((a): ItemAnswer => ({ limitKeys: a.limitKeys, limitTokens: a.limitTokens, cast: a.cast }))
        })
      )

    /**
     * Casts a group and answers each of its votes. The change of every vote that moved something (or
     * filed a report) is announced once for the group, before any of them is answered: a client that
     * reads after its vote's answer reads past it. A failed call wrote nothing: each vote is then cast
     * alone, in order, so an error stays with the vote that caused it and the others count.
     */
    const settle = (group: ReadonlyArray<Waiting>): Effect.Effect<void> =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(castGroup(group))
        if (Exit.isFailure(exit)) {
          if (group.length === 1) yield* Deferred.failCause(group[0]!.answer, exit.cause)
          else for (const one of group) yield* settle([one])
          return
        }
        // The products whose votes moved something (or filed a report), each once, with the call's transaction.
        const changed = new Map<ProductId, string | undefined>()
        for (const [i, { cast }] of exit.value.entries()) {
          if (cast?.outcome !== "cast" || (cast.status === "unchanged" && group[i]!.item.ballot.reason_key === undefined)) continue
          const id = cast.product_id as ProductId
          changed.set(id, changed.get(id) ?? cast.xid ?? undefined)
        }
        if (changed.size > 0) yield* announcer.announce([...changed].map(([id, xid]) => ({ id, xid })))
        for (const [i, answer] of exit.value.entries()) yield* Deferred.succeed(group[i]!.answer, answer)
      }).pipe(Effect.onInterrupt(() => Effect.forEach(group, (w) => Deferred.interrupt(w.answer), { discard: true })))

    /** Calls one after another while votes wait; then none is in flight until the next vote. */
    const fly: Effect.Effect<void> = Effect.gen(function* () {
      for (;;) {
        const group = waiting!.splice(0, MAX_GROUP)
        // In the same step as the check: a vote that comes after it starts the next flight.
        if (group.length === 0) {
          waiting = undefined
          return
        }
        yield* settle(group)
      }
    }).pipe(
      Effect.onInterrupt(() =>
        Effect.suspend(() => {
          const left = waiting ?? []
          waiting = undefined
          return Effect.forEach(left, (w) => Deferred.interrupt(w.answer), { discard: true })
        })
      )
    )

    /** A vote, within `limits` (buckets in this database), through the next call. */
    const submit = Effect.fnUntraced(function* (limits: ReadonlyArray<Limit>, vote: CastVote) {
      const item = { limits: bucketsOf(limits), ballot: ballot(vote, yield* stamp) }
      const answer = yield* Deferred.make<ItemAnswer, StoreError>()
      if (waiting !== undefined) waiting.push({ item, answer })
      else {
        waiting = [{ item, answer }]
        yield* Effect.forkIn(fly, scope)
      }
      return yield* Deferred.await(answer)
    })

    /** The vote, drawing on its budgets: limited by one of them, or cast. */
    const castBudgeted = Effect.fn("VoteLedger.cast")(function* (vote: CastVote) {
      const { cast: row } = yield* submit([], vote)
      const decision = budgetDecision(vote, row)
      if (decision._tag === "Limited") return { _tag: "Limited", decision } as const
      return { _tag: "Cast", decision, result: yield* castResult(row, vote) } as const
    })

    const cast = (vote: CastVote) =>
      Effect.map(castBudgeted({ ...vote, budgets: undefined }), (cast) => (cast as Extract<typeof cast, { _tag: "Cast" }>).result)

    // With the buckets in this database (SqlRateLimits), the limits and the cast are one call:
    // a vote costs no round trip of its own for them.
    const castWithin = options.limitsInDatabase
      ? Effect.fn("VoteLedger.castWithin")(function* (limits: ReadonlyArray<Limit>, vote: CastVote) {
          const active = activeLimits(limits)
          const answer = yield* submit(active, vote)
          const decision = decisionOf(active, answer.limitKeys, answer.limitTokens)
          if (decision._tag === "Limited") return { _tag: "Limited", decision } as const
          const budgets = budgetDecision(vote, answer.cast)
          if (budgets._tag === "Limited") return { _tag: "Limited", decision: budgets } as const
          return { _tag: "Cast", decision, result: yield* castResult(answer.cast, vote) } as const
        })
      : castAfterTaking(rateLimits, castBudgeted)

    const streamed = (batchSize: number): Stream.Stream<ReadonlyArray<CounterSnapshot>, StoreError> =>
      sql<SnapshotRow>`
      SELECT p.id, p.seed_up, p.seed_down, p.trust_up, p.trust_down, p.weight_up, p.weight_down,
        coalesce(v.up, 0) AS up, coalesce(v.down, 0) AS down, coalesce(v.wup, 0) AS wup, coalesce(v.wdown, 0) AS wdown
      FROM products p LEFT JOIN (
        SELECT product_id, ${sql.literal(COUNTED_SUMS)} FROM counted_votes GROUP BY product_id
      ) v ON v.product_id = p.id`.stream.pipe(
        Stream.map(toSnapshot),
        Stream.grouped(batchSize),
        Stream.catchIf(isSqlError, (error) => Stream.fromEffect(Effect.fail(toStoreError("snapshots", error))))
      )

    const paged = (batchSize: number): Stream.Stream<ReadonlyArray<CounterSnapshot>, StoreError> =>
      Stream.paginate(FIRST_ID, (after: string) =>
        // One statement per batch: counters and ledger are read from the same snapshot.
        sql<SnapshotRow>`
        WITH p AS (
          SELECT id, seed_up, seed_down, trust_up, trust_down, weight_up, weight_down FROM products
          WHERE id > ${after}::uuid ORDER BY id LIMIT ${batchSize}
        ), bounds AS (
          SELECT (SELECT id FROM p ORDER BY id LIMIT 1) AS lo, (SELECT id FROM p ORDER BY id DESC LIMIT 1) AS hi
        ), v AS (
          -- One range of the ledger's primary key per batch: the batch's products are consecutive ids.
          SELECT product_id, ${sql.literal(COUNTED_SUMS)}
          FROM counted_votes, bounds WHERE product_id BETWEEN bounds.lo AND bounds.hi
          GROUP BY product_id
        )
        SELECT p.id, p.seed_up, p.seed_down, p.trust_up, p.trust_down, p.weight_up, p.weight_down,
          coalesce(v.up, 0) AS up, coalesce(v.down, 0) AS down, coalesce(v.wup, 0) AS wup, coalesce(v.wdown, 0) AS wdown
        FROM p LEFT JOIN v ON v.product_id = p.id ORDER BY p.id`.pipe(
          storeError("snapshots"),
          Effect.map((rows) => {
            const page = rows.map(toSnapshot)
            const last = page.at(-1)
            return [page.length > 0 ? [page] : [], page.length === batchSize && last ? Option.some(last.id) : Option.none()] as const
          })
        )
      )

    const snapshots = options.streamSnapshots ? streamed : paged

    const repair = Effect.fn("VoteLedger.repair")(function* (drifted: ReadonlyArray<CounterSnapshot>) {
      if (drifted.length === 0) return []
      const rows = [...drifted]
        .map((s) => ({
          id: canonicalProductId(s.id),
          seed_up: s.seed.up,
          seed_down: s.seed.down,
          stored_up: s.stored.up,
          stored_down: s.stored.down,
          up: s.seed.up + s.ledger.up,
          down: s.seed.down + s.ledger.down,
          stored_wup: s.storedWeighted.up,
          stored_wdown: s.storedWeighted.down,
          wup: expectedWeighted(s).up,
          wdown: expectedWeighted(s).down
        }))
        .filter((r) => r.up !== r.stored_up || r.down !== r.stored_down || r.wup !== r.stored_wup || r.wdown !== r.stored_wdown)
        .sort((a, b) => (a.id < b.id ? -1 : 1))
      if (rows.length === 0) return []
      return yield* Effect.gen(function* () {
        // Compare-and-set: a vote or an import since the snapshot moved the counters or the seed, and
        // then the row is left to the recount. A vote waiting on the row lock sees our write first.
        const set = yield* sql<{ id: string }>`
        UPDATE products p SET trust_up = x.up, trust_down = x.down, weight_up = x.wup, weight_down = x.wdown
        FROM jsonb_to_recordset(${pg.json(rows)}) AS x(
          id uuid, seed_up bigint, seed_down bigint, stored_up bigint, stored_down bigint, up bigint, down bigint,
          stored_wup bigint, stored_wdown bigint, wup bigint, wdown bigint)
        WHERE p.id = x.id AND p.trust_up = x.stored_up AND p.trust_down = x.stored_down
          AND p.weight_up = x.stored_wup AND p.weight_down = x.stored_wdown
          AND p.seed_up = x.seed_up AND p.seed_down = x.seed_down
        RETURNING p.id`
        const done = new Set(set.map((r) => r.id))
        // The rest moved since their snapshot: recounted under their row locks.
        const recounted = yield* recount(
          sql,
          rows.filter((r) => !done.has(r.id)).map((r) => r.id)
        )
        return [
          ...rows
            .filter((r) => done.has(r.id))
            .map(
              (r): Repair => ({
                id: r.id,
                before: { up: r.stored_up, down: r.stored_down },
                after: { up: r.up, down: r.down }
              })
            ),
          ...recounted.map((r): Repair => ({ ...r, id: r.id as ProductId }))
        ]
      }).pipe(
        sql.withTransaction,
        storeError("repair"),
        Effect.tap((repairs) => announcer.announce(repairs.map((r) => ({ id: r.id }))))
      )
    })

    const formation = Effect.fn("VoteLedger.formation")(function* (id: ProductId) {
      // A product read (the agent view's): on a replica that has the product's last change, else the primary.
      const rows = yield* router
        .product(
          canonicalProductId(id),
          true,
          (db) => db<{ agent: boolean; counting: VoteCounting; direction: VoteDirection; weight: number; grouped: boolean; n: number }>`
            SELECT voter LIKE 'agent:%' AS agent, counting, direction, weight, group_id IS NOT NULL AS grouped, count(*)::int AS n
            FROM votes WHERE product_id = ${canonicalProductId(id)} AND revoked_at IS NULL
            GROUP BY 1, 2, 3, 4, 5`
        )
        .pipe(storeError("formation"))
      const counted = (keep: (r: (typeof rows)[number]) => boolean, direction: VoteDirection) =>
        rows.filter((r) => keep(r) && r.counting === "counted" && r.direction === direction).reduce((n, r) => n + r.n, 0)
      const tally = (agent: boolean) => ({ up: counted((r) => r.agent === agent, "up"), down: counted((r) => r.agent === agent, "down") })
      const weights = [...new Set(rows.filter((r) => r.counting === "counted").map((r) => r.weight))]
        .sort((a, b) => b - a)
        .map((weight) => ({
          weight,
          up: counted((r) => r.weight === weight, "up"),
          down: counted((r) => r.weight === weight, "down")
        }))
      const sum = (counting: VoteCounting) => rows.filter((r) => r.counting === counting).reduce((n, r) => n + r.n, 0)
      const held = (keep: (r: (typeof rows)[number]) => boolean) =>
        rows.filter((r) => r.counting === "held" && keep(r)).reduce((n, r) => n + r.n, 0)
      return {
        agents: tally(true),
        addresses: tally(false),
        byWeight: weights,
        held: sum("held"),
        heldBy: {
          waiting: held((r) => heldReason(r.grouped, r.agent, r.weight) === "waiting"),
          anonymous: held((r) => heldReason(r.grouped, r.agent, r.weight) === "anonymous"),
          reversal: held((r) => heldReason(r.grouped, r.agent, r.weight) === "reversal"),
          group: held((r) => heldReason(r.grouped, r.agent, r.weight) === "group")
        },
        discounted: sum("discounted")
      } satisfies LedgerFormation
    })

    return VoteLedger.of({ cast, castWithin, snapshots, repair, formation })
  })

export const layer = (options: Options) => Layer.effect(VoteLedger, make(options))
