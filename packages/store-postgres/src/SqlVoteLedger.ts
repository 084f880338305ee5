/**
 * VoteLedger on PostgreSQL: the voter's standing, the ledger row, the counters
 * and the problem report are checked and moved in one transaction.
 */
import { Effect, Layer, Option, Stream } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import { isSqlError } from "effect/sql/SqlError"
import {
  AgentRevoked,
  canonicalProductId,
  castAfterTaking,
  type CastVote,
  type CounterSnapshot,
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
  type VoteStatus
} from "@productdir/domain"
import { storeError, toStoreError } from "./errors.ts"
import { activeLimits, decisionOf } from "./SqlRateLimits.ts"
import { recount } from "./recount.ts"
import { stamp } from "./stamp.ts"
import { Announcer } from "./ChangeFeed.ts"
import { ReadRouter } from "./ReadReplicas.ts"
import { retryDeadlocks } from "./deadlocks.ts"

const FIRST_ID = "00000000-0000-0000-0000-000000000000"

type Count = bigint | number | string

/** What productdir_cast_vote answers (routines/castVote.ts): the vote, decided there once, or why none. */
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
}

type SnapshotRow = { id: string; seed_up: Count; seed_down: Count; trust_up: Count; trust_down: Count; up: Count; down: Count }

const toSnapshot = (r: SnapshotRow): CounterSnapshot => ({
  id: r.id as ProductId,
  seed: { up: Number(r.seed_up), down: Number(r.seed_down) },
  stored: { up: Number(r.trust_up), down: Number(r.trust_down) },
  ledger: { up: Number(r.up), down: Number(r.down) }
})

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
    const bucketsOf = (limits: ReadonlyArray<Limit>) =>
      limits.map((limit) => ({ key: limit.key, max: limit.max, window_ms: limit.windowSeconds * 1000 }))

    /** The vote as productdir_cast_vote's ballot: one jsonb object. */
    const ballot = (vote: CastVote, now: Date) => {
      const reason = vote.direction === "down" && vote.reason !== undefined ? vote.reason : undefined
      const budgets = activeLimits(vote.budgets ?? [])
      return pg.json({
        ...(isProductId(vote.entity) ? { product_id: canonicalProductId(vote.entity) } : { slug: vote.entity }),
        voter: ledgerKey(vote.voter),
        ...(vote.voter._tag === "Agent" ? { agent_id: vote.voter.agentId } : {}),
        direction: vote.direction,
        at: now.toISOString(),
        ...(reason === undefined ? {} : { reason_key: normalizeReason(reason), reason_summary: tidyReason(reason) }),
        ...(vote.network === undefined ? {} : { network: vote.network }),
        ...(vote.guard === undefined ? {} : { guard: { floor: vote.guard.floor, factor: vote.guard.factor } }),
        ...(budgets.length === 0 ? {} : { budgets: bucketsOf(budgets) })
      })
    }

    /** The budgets' decision from the cast's row (tokens before the draw; a budget not drawn on was full). */
    const budgetDecision = (vote: CastVote, row: CastRow | undefined) =>
      decisionOf(activeLimits(vote.budgets ?? []), row?.budget_keys ?? [], row?.budget_tokens ?? [])

    /** What the cast's row says: the vote counted, or why not. */
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
      const productId = row.product_id as ProductId
      const status = row.status!
      // Committed: this process's copies go now. A report alone (same vote, new reason) changes the problems too.
      const reported = vote.direction === "down" && vote.reason !== undefined
      if (status !== "unchanged" || reported) yield* announcer.announce([{ id: productId, xid: row.xid ?? undefined }])
      return {
        productId,
        direction: vote.direction,
        status,
        counting: row.counting!,
        counters: { up: Number(row.trust_up), down: Number(row.trust_down) }
      }
    })

    // One call (routines/castVote.ts, productdir_cast_vote): the standing, the locks, the ballot,
    // the counters and the report in one round trip. The row lock on the product serialises votes
    // per product; the recount of the reconciliation job takes the same lock, so neither
    // overwrites the other.
    /** The vote, drawing on its budgets: limited by one of them, or cast. */
    const castBudgeted = Effect.fn("VoteLedger.cast")(function* (vote: CastVote) {
      const [row] = yield* sql<CastRow>`SELECT * FROM productdir_cast_vote(${ballot(vote, yield* stamp)})`.pipe(
        retryDeadlocks,
        storeError("cast")
      )
      const decision = budgetDecision(vote, row)
      if (decision._tag === "Limited") return { _tag: "Limited", decision } as const
      return { _tag: "Cast", decision, result: yield* castResult(row, vote) } as const
    })

    const cast = (vote: CastVote) =>
      Effect.map(castBudgeted({ ...vote, budgets: undefined }), (cast) => (cast as Extract<typeof cast, { _tag: "Cast" }>).result)

    // With the buckets in this database (SqlRateLimits), the limits and the cast are one call
    // (productdir_cast_vote_within): a vote costs one round trip, not two.
    const castWithin = options.limitsInDatabase
      ? Effect.fn("VoteLedger.castWithin")(function* (limits: ReadonlyArray<Limit>, vote: CastVote) {
          const active = activeLimits(limits)
          const [row] = yield* sql<CastRow & { readonly limit_keys: Array<string>; readonly limit_tokens: Array<number> }>`
            SELECT * FROM productdir_cast_vote_within(${pg.json(bucketsOf(active))}, ${ballot(vote, yield* stamp)})`.pipe(
            retryDeadlocks,
            storeError("cast")
          )
          const decision = decisionOf(active, row?.limit_keys ?? [], row?.limit_tokens ?? [])
          if (decision._tag === "Limited") return { _tag: "Limited", decision } as const
          const budgets = budgetDecision(vote, row)
          if (budgets._tag === "Limited") return { _tag: "Limited", decision: budgets } as const
          return { _tag: "Cast", decision, result: yield* castResult(row, vote) } as const
        })
      : castAfterTaking(rateLimits, castBudgeted)

    const streamed = (batchSize: number): Stream.Stream<ReadonlyArray<CounterSnapshot>, StoreError> =>
      sql<SnapshotRow>`
      SELECT p.id, p.seed_up, p.seed_down, p.trust_up, p.trust_down, coalesce(v.up, 0) AS up, coalesce(v.down, 0) AS down
      FROM products p LEFT JOIN (
        SELECT product_id, count(*) FILTER (WHERE direction = 'up') AS up, count(*) FILTER (WHERE direction = 'down') AS down
        FROM counted_votes GROUP BY product_id
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
          SELECT id, seed_up, seed_down, trust_up, trust_down FROM products
          WHERE id > ${after}::uuid ORDER BY id LIMIT ${batchSize}
        ), bounds AS (
          SELECT (SELECT id FROM p ORDER BY id LIMIT 1) AS lo, (SELECT id FROM p ORDER BY id DESC LIMIT 1) AS hi
        ), v AS (
          -- One range of the ledger's primary key per batch: the batch's products are consecutive ids.
          SELECT product_id, count(*) FILTER (WHERE direction = 'up') AS up, count(*) FILTER (WHERE direction = 'down') AS down
          FROM counted_votes, bounds WHERE product_id BETWEEN bounds.lo AND bounds.hi
          GROUP BY product_id
        )
        SELECT p.id, p.seed_up, p.seed_down, p.trust_up, p.trust_down, coalesce(v.up, 0) AS up, coalesce(v.down, 0) AS down
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
          down: s.seed.down + s.ledger.down
        }))
        .filter((r) => r.up !== r.stored_up || r.down !== r.stored_down)
        .sort((a, b) => (a.id < b.id ? -1 : 1))
      if (rows.length === 0) return []
      return yield* Effect.gen(function* () {
        // Compare-and-set: a vote or an import since the snapshot moved the counters or the seed, and
        // then the row is left to the recount. A vote waiting on the row lock sees our write first.
        const set = yield* sql<{ id: string }>`
        UPDATE products p SET trust_up = x.up, trust_down = x.down
        FROM jsonb_to_recordset(${pg.json(rows)}) AS x(
          id uuid, seed_up bigint, seed_down bigint, stored_up bigint, stored_down bigint, up bigint, down bigint)
        WHERE p.id = x.id AND p.trust_up = x.stored_up AND p.trust_down = x.stored_down
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
          (db) => db<{ agent: boolean; counting: VoteCounting; direction: VoteDirection; n: number }>`
            SELECT voter LIKE 'agent:%' AS agent, counting, direction, count(*)::int AS n
            FROM votes WHERE product_id = ${canonicalProductId(id)} AND revoked_at IS NULL
            GROUP BY 1, 2, 3`
        )
        .pipe(storeError("formation"))
      const tally = (agent: boolean) => ({
        up: rows.find((r) => r.agent === agent && r.counting === "counted" && r.direction === "up")?.n ?? 0,
        down: rows.find((r) => r.agent === agent && r.counting === "counted" && r.direction === "down")?.n ?? 0
      })
      const sum = (counting: VoteCounting) => rows.filter((r) => r.counting === counting).reduce((n, r) => n + r.n, 0)
      return { agents: tally(true), addresses: tally(false), held: sum("held"), discounted: sum("discounted") } satisfies LedgerFormation
    })

    return VoteLedger.of({ cast, castWithin, snapshots, repair, formation })
  })

export const layer = (options: Options) => Layer.effect(VoteLedger, make(options))
