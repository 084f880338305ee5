/**
 * ProblemStore on PostgreSQL: reports aggregated per normalised reason and text, with whether their words may be quoted. A report counts as its vote does:
 * not a revoked agent's, nor one whose vote is held (until the integrity pass counts it) or discounted. A product read: on a replica that has its last change, else the primary (ReadReplicas.ts).
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import {
  canonicalProductId,
  type ProductId,
  ProblemStore,
  REPORT_TEXT_BUDGET,
  type ReportedPhrasing,
  type StoredReply,
  VOTE_WEIGHTS
} from "@productdir/domain"
import { storeError } from "./errors.ts"
import { ReadRouter } from "./ReadReplicas.ts"
import { Announcer } from "./ChangeFeed.ts"

const WINDOW = `${REPORT_TEXT_BUDGET.windowHours} hours`

export const make = Effect.gen(function* () {
  const router = yield* ReadRouter
  const primary = yield* SqlClient.SqlClient
  const announcer = yield* Announcer
  const reported = Effect.fn("ProblemStore.reported")(function* (id: ProductId) {
    const product = canonicalProductId(id)
    const rows = yield* router
      .product(
        product,
        true,
        // A report's words are quoted while its voter, and its network, have reported fewer than their budgets in the
        // day before it (earlier in (time, product, voter) order: the memory store draws them in the same order).
        (sql: SqlClient.SqlClient) => sql<{
          problem_key: string
          summary: string
          agents: number
          addresses: number
          weight: number
          quoted: boolean
          first_at: Date
          last_at: Date
        }>`
          WITH counted AS (
            SELECT r.problem_key, r.summary, r.voter, r.reported_at, r.network, coalesce(v.weight, ${VOTE_WEIGHTS.address}) AS weight
            FROM problem_reports r
            LEFT JOIN votes v ON v.product_id = r.product_id AND v.voter = r.voter
            WHERE r.product_id = ${product} AND r.revoked_at IS NULL AND (v.counting IS NULL OR v.counting = 'counted')
          ), budgeted AS (
            SELECT c.*,
              (SELECT count(*) FROM problem_reports o
                 WHERE o.voter = c.voter AND o.revoked_at IS NULL
                   AND o.reported_at > c.reported_at - ${WINDOW}::interval
                   AND (o.reported_at, o.product_id) < (c.reported_at, ${product}::uuid))
                < CASE WHEN c.weight >= ${VOTE_WEIGHTS.standing} THEN ${REPORT_TEXT_BUDGET.standingVoter} ELSE ${REPORT_TEXT_BUDGET.voter} END
              AND (c.network IS NULL OR
                (SELECT count(*) FROM problem_reports o
                   WHERE o.network = c.network AND o.revoked_at IS NULL
                     AND o.reported_at > c.reported_at - ${WINDOW}::interval
                     AND (o.reported_at, o.product_id, o.voter COLLATE "C") < (c.reported_at, ${product}::uuid, c.voter COLLATE "C"))
                < ${REPORT_TEXT_BUDGET.network}) AS quoted
            FROM counted c
          )
          SELECT problem_key, summary, quoted,
                 count(*) FILTER (WHERE voter LIKE 'agent:%')::int AS agents,
                 count(*) FILTER (WHERE voter NOT LIKE 'agent:%')::int AS addresses,
                 sum(weight)::int AS weight, min(reported_at) AS first_at, max(reported_at) AS last_at
          FROM budgeted
          GROUP BY problem_key, summary, quoted`
      )
      .pipe(storeError("problems"))
    return rows.map(
      (r): ReportedPhrasing => ({
        key: r.problem_key,
        text: r.summary,
        agents: r.agents,
        addresses: r.addresses,
        weight: r.weight,
        quoted: r.quoted,
        firstReportedAt: r.first_at,
        lastReportedAt: r.last_at
      })
    )
  })
  const replies = Effect.fn("ProblemStore.replies")(function* (id: ProductId) {
    const product = canonicalProductId(id)
    const rows = yield* router
      .product(
        product,
        true,
        (sql: SqlClient.SqlClient) => sql<{
          problem_id: string
          text: string
          publisher_domain: string
          fixed_in_version: number | null
          replied_at: Date
        }>`SELECT problem_id, text, publisher_domain, fixed_in_version, replied_at FROM problem_replies
           WHERE product_id = ${product} ORDER BY problem_id`,
        () => false
      )
      .pipe(storeError("replies"))
    return rows.map(
      (r): StoredReply => ({
        problemId: r.problem_id,
        text: r.text,
        domain: r.publisher_domain,
        fixedInVersion: r.fixed_in_version,
        repliedAt: r.replied_at
      })
    )
  })
  // The row's trigger stamps its product changed (migration 0023): every process hears of it through the change feed,
  // this one at once.
  const reply = (id: ProductId, r: StoredReply) =>
    primary`
      INSERT INTO problem_replies (product_id, problem_id, text, publisher_domain, fixed_in_version, replied_at)
      VALUES (${canonicalProductId(id)}, ${r.problemId}, ${r.text}, ${r.domain}, ${r.fixedInVersion}, ${r.repliedAt})
      ON CONFLICT (product_id, problem_id) DO UPDATE SET text = EXCLUDED.text, publisher_domain = EXCLUDED.publisher_domain,
        fixed_in_version = EXCLUDED.fixed_in_version, replied_at = EXCLUDED.replied_at`.pipe(
      storeError("reply"),
      Effect.andThen(announcer.announce([{ id: canonicalProductId(id) }]))
    )
  return ProblemStore.of({ reported, replies, reply })
})

export const layer = Layer.effect(ProblemStore, make)
