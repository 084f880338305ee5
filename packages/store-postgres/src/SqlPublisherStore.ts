/** Publishers on PostgreSQL: the `publishers` table (migration 0023). */
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { type ProofMethod, type Publisher, type PublisherId, PublisherStore, type PublisherStatus } from "@productdir/domain"
import { storeError } from "./errors.ts"

interface PublisherRow {
  readonly id: string
  readonly domain: string
  readonly status: PublisherStatus
  readonly token: string
  readonly method: ProofMethod | null
  readonly key_hash: string | null
  readonly created_at: Date
  readonly verified_at: Date | null
  readonly failed_checks: number
  readonly checked_at: Date | null
  readonly check_note: string | null
  readonly suspended_at: Date | null
}

const COLUMNS = "id, domain, status, token, method, key_hash, created_at, verified_at, failed_checks, checked_at, check_note, suspended_at"

const toPublisher = (row: PublisherRow): Publisher => ({
  id: row.id as PublisherId,
  domain: row.domain,
  status: row.status,
  token: row.token,
  method: row.method,
  keyHash: row.key_hash,
  createdAt: row.created_at,
  verifiedAt: row.verified_at,
  failedChecks: row.failed_checks,
  checkedAt: row.checked_at,
  checkNote: row.check_note,
  suspendedAt: row.suspended_at
})

const first = (rows: ReadonlyArray<PublisherRow>) => Option.map(Option.fromNullishOr(rows[0]), toPublisher)

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const one = <E, R>(rows: Effect.Effect<ReadonlyArray<PublisherRow>, E, R>) => rows.pipe(storeError("publishers"), Effect.map(first))
  return PublisherStore.of({
    claim: (p) =>
      sql`INSERT INTO publishers (id, domain, status, token, method, key_hash, created_at, verified_at)
          VALUES (${p.id}, ${p.domain}, ${p.status}, ${p.token}, ${p.method}, ${p.keyHash}, ${p.createdAt}, ${p.verifiedAt})`.pipe(
        storeError("publishers"),
        Effect.as(p)
      ),
    find: (id) => one(sql<PublisherRow>`SELECT ${sql.literal(COLUMNS)} FROM publishers WHERE id = ${id}`),
    verifiedFor: (domain) =>
      one(sql<PublisherRow>`SELECT ${sql.literal(COLUMNS)} FROM publishers WHERE domain = ${domain} AND status = 'verified'`),
    // The partial unique index decides a race between two proofs of one domain: the loser updates nothing.
    verify: (id, proof) =>
      sql<PublisherRow>`
        UPDATE publishers SET status = 'verified', method = ${proof.method}, key_hash = ${proof.keyHash}, verified_at = ${proof.at}
        WHERE id = ${id} AND status = 'pending'
          AND NOT EXISTS (SELECT 1 FROM publishers v WHERE v.domain = publishers.domain AND v.status = 'verified')
        RETURNING ${sql.literal(COLUMNS)}`.pipe(
        Effect.catchIf(
          (error) => /publishers_one_verified/.test(String(error.cause)),
          () => Effect.succeed([] as ReadonlyArray<PublisherRow>)
        ),
        storeError("publishers"),
        Effect.map(first)
      ),
    due: (before, limit) =>
      sql<PublisherRow>`
        SELECT ${sql.literal(COLUMNS)} FROM publishers
        WHERE status = 'verified' AND coalesce(checked_at, verified_at, created_at) < ${before}
        ORDER BY coalesce(checked_at, verified_at, created_at), id LIMIT ${limit}`.pipe(
        storeError("publishers"),
        Effect.map((rows) => rows.map(toPublisher))
      ),
    recordCheck: (id, check) =>
      one(sql<PublisherRow>`
        UPDATE publishers SET
          failed_checks = CASE WHEN ${check.note}::text IS NULL THEN 0 ELSE failed_checks + 1 END,
          checked_at = ${check.at}, check_note = ${check.note},
          status = CASE WHEN ${check.note}::text IS NOT NULL AND failed_checks + 1 >= ${check.suspendAfter} THEN 'suspended' ELSE status END,
          suspended_at = CASE WHEN ${check.note}::text IS NOT NULL AND failed_checks + 1 >= ${check.suspendAfter} THEN ${check.at} ELSE NULL END
        WHERE id = ${id} AND status = 'verified'
        RETURNING ${sql.literal(COLUMNS)}`),
    list: sql<PublisherRow>`SELECT ${sql.literal(COLUMNS)} FROM publishers ORDER BY created_at, id`.pipe(
      storeError("publishers"),
      Effect.map((rows) => rows.map(toPublisher))
    ),
    // Restored, the partial unique index refuses it when its domain has another verified publisher now: none.
    setStatus: (id, change) =>
      one(
        sql<PublisherRow>`
          UPDATE publishers SET status = ${change.to}, check_note = ${change.note},
            suspended_at = ${change.to === "suspended" ? change.at : null},
            failed_checks = CASE WHEN ${change.to} = 'verified' THEN 0 ELSE failed_checks END
          WHERE id = ${id} AND status = ${change.to === "suspended" ? "verified" : "suspended"}
            AND (${change.to} = 'suspended' OR NOT EXISTS (
              SELECT 1 FROM publishers v WHERE v.domain = publishers.domain AND v.status = 'verified'))
          RETURNING ${sql.literal(COLUMNS)}`.pipe(
          Effect.catchIf(
            (error) => /publishers_one_verified/.test(String(error.cause)),
            () => Effect.succeed([] as ReadonlyArray<PublisherRow>)
          )
        )
      ),
    byKeyHash: (keyHash) =>
      one(sql<PublisherRow>`SELECT ${sql.literal(COLUMNS)} FROM publishers WHERE key_hash = ${keyHash} AND status = 'verified'`)
  })
})

export const layer = Layer.effect(PublisherStore, make)
