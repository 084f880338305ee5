/** VoteLedger on PostgreSQL: the ledger row, the counters and the problem report move in one transaction. */
import { Effect, Layer, Option, Stream } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import { isSqlError } from "effect/sql/SqlError"
import {
  canonicalProductId,
  type CastVote,
  type CounterSnapshot,
  isProductId,
  normalizeReason,
  type ProductId,
  ProductNotFound,
  ProductRemoved,
  type Repair,
  type StoreError,
  StoreError as StoreErrorClass,
  tidyReason,
  type VoteDirection,
  VoteLedger,
  voteTransition
} from "@productdir/domain"
import { storeError } from "./errors.ts"
import { PRODUCT_COLUMNS, type ProductRow, toProduct } from "./rows.ts"

const FIRST_ID = "00000000-0000-0000-0000-000000000000"

type Count = bigint | number | string

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
}

export const make = (options: Options) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = yield* PgClient.PgClient

  // The row lock on the product serialises votes per product; the recount of
  // the reconciliation job takes the same lock, so neither overwrites the other.
  const lockProduct = (entity: string) =>
    isProductId(entity)
      ? sql<ProductRow>`SELECT ${sql.literal(PRODUCT_COLUMNS)} FROM products WHERE id = ${canonicalProductId(entity)} FOR UPDATE`
      : sql<ProductRow>`SELECT ${sql.literal(PRODUCT_COLUMNS)} FROM products WHERE slug = ${entity} FOR UPDATE`

  const cast = Effect.fn("VoteLedger.cast")(function*(vote: CastVote) {
    return yield* Effect.gen(function*() {
      const row = (yield* lockProduct(vote.entity))[0]
      if (row === undefined) return yield* new ProductNotFound({ ref: vote.entity })
      if (row.removed_at !== null) return yield* new ProductRemoved({ id: row.id, removedAt: row.removed_at.toISOString() })
      const product = toProduct(row)
      // Read after the lock, in a statement of its own: its snapshot sees every
      // vote committed by whoever held the lock before us.
      const [previous] = yield* sql<{ direction: VoteDirection }>`
        SELECT direction FROM votes WHERE product_id = ${product.id} AND voter = ${vote.voter}`
      const { delta, status } = voteTransition(previous?.direction, vote.direction)
      let counters = product.counters
      if (status !== "unchanged") {
        const [after] = yield* sql<{ trust_up: Count; trust_down: Count }>`
          WITH ballot AS (
            INSERT INTO votes (product_id, voter, direction) VALUES (${product.id}, ${vote.voter}, ${vote.direction})
            ON CONFLICT (product_id, voter) DO UPDATE SET direction = EXCLUDED.direction, updated_at = now()
          )
          UPDATE products SET trust_up = trust_up + ${delta.up}, trust_down = trust_down + ${delta.down}
          WHERE id = ${product.id}
          RETURNING trust_up, trust_down`
        if (after) counters = { up: Number(after.trust_up), down: Number(after.trust_down) }
      }
      if (vote.direction === "up" && status === "changed") {
        // Moving to up withdraws what this voter reported against the product.
        yield* sql`DELETE FROM problem_reports WHERE product_id = ${product.id} AND voter = ${vote.voter}`
      } else if (vote.direction === "down" && vote.reason !== undefined) {
        yield* sql`
          INSERT INTO problem_reports (product_id, problem_key, voter, summary)
          VALUES (${product.id}, ${normalizeReason(vote.reason)}, ${vote.voter}, ${tidyReason(vote.reason)})
          ON CONFLICT DO NOTHING`
      }
      return { product: { ...product, counters }, direction: vote.direction, status, counters }
    }).pipe(sql.withTransaction, storeError("cast"))
  })

  const streamed = (batchSize: number): Stream.Stream<ReadonlyArray<CounterSnapshot>, StoreError> =>
    sql<SnapshotRow>`
      SELECT p.id, p.seed_up, p.seed_down, p.trust_up, p.trust_down, coalesce(v.up, 0) AS up, coalesce(v.down, 0) AS down
      FROM products p LEFT JOIN (
        SELECT product_id, count(*) FILTER (WHERE direction = 'up') AS up, count(*) FILTER (WHERE direction = 'down') AS down
        FROM votes GROUP BY product_id
      ) v ON v.product_id = p.id`.stream.pipe(
      Stream.map(toSnapshot),
      Stream.grouped(batchSize),
      Stream.catchIf(isSqlError, (error) =>
        Stream.fromEffect(Effect.fail(new StoreErrorClass({ operation: "snapshots", detail: error.reason._tag }))))
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
          FROM votes, bounds WHERE product_id BETWEEN bounds.lo AND bounds.hi
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
      ))

  const snapshots = options.streamSnapshots ? streamed : paged

  /** Recount under row locks: for products that moved since their snapshot. */
  const recount = (list: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      // Lock first, in id order; the recount below is a new statement, so its
      // snapshot sees every vote committed before the locks were granted.
      yield* sql`SELECT id FROM products WHERE id = ANY(${list}::uuid[]) ORDER BY id FOR UPDATE`
      return yield* sql<{ id: string; before_up: Count; before_down: Count; up: Count; down: Count }>`
        WITH v AS (
          SELECT product_id, count(*) FILTER (WHERE direction = 'up') AS up, count(*) FILTER (WHERE direction = 'down') AS down
          FROM votes WHERE product_id = ANY(${list}::uuid[]) GROUP BY product_id
        ), e AS (
          SELECT p.id, p.trust_up AS before_up, p.trust_down AS before_down,
                 p.seed_up + coalesce(v.up, 0) AS up, p.seed_down + coalesce(v.down, 0) AS down
          FROM products p LEFT JOIN v ON v.product_id = p.id
          WHERE p.id = ANY(${list}::uuid[])
        )
        UPDATE products p SET trust_up = e.up, trust_down = e.down
        FROM e WHERE p.id = e.id AND (p.trust_up, p.trust_down) IS DISTINCT FROM (e.up, e.down)
        RETURNING p.id, e.before_up, e.before_down, e.up, e.down`
    })

  const repair = Effect.fn("VoteLedger.repair")(function*(drifted: ReadonlyArray<CounterSnapshot>) {
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
    return yield* Effect.gen(function*() {
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
      const moved = rows.filter((r) => !done.has(r.id)).map((r) => r.id)
      const recounted = moved.length > 0 ? yield* recount(moved) : []
      return [
        ...rows.filter((r) => done.has(r.id)).map((r): Repair => ({
          id: r.id,
          before: { up: r.stored_up, down: r.stored_down },
          after: { up: r.up, down: r.down }
        })),
        ...recounted.map((r): Repair => ({
          id: r.id as ProductId,
          before: { up: Number(r.before_up), down: Number(r.before_down) },
          after: { up: Number(r.up), down: Number(r.down) }
        }))
      ]
    }).pipe(sql.withTransaction, storeError("repair"))
  })

  return VoteLedger.of({ cast, snapshots, repair })
})

export const layer = (options: Options) => Layer.effect(VoteLedger, make(options))
