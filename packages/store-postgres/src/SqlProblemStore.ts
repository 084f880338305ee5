/**
 * ProblemStore on PostgreSQL: reports aggregated per normalised reason. A report counts as its vote does:
 * not a revoked agent's, nor one whose vote is held (until the integrity pass counts it) or discounted. A product read: on a replica that has its last change, else the primary (ReadReplicas.ts).
 */
import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { canonicalProductId, type ProductId, ProblemStore, type ReportedProblem } from "@productdir/domain"
import { storeError } from "./errors.ts"
import { ReadRouter } from "./ReadReplicas.ts"

export const make = Effect.gen(function* () {
  const router = yield* ReadRouter
  const reported = Effect.fn("ProblemStore.reported")(function* (id: ProductId) {
    const rows = yield* router
      .product(
        canonicalProductId(id),
        true,
        (sql: SqlClient.SqlClient) => sql<{ problem_key: string; summary: string; reports: number; first_at: Date; last_at: Date }>`
          SELECT problem_key, (array_agg(summary ORDER BY reported_at, voter))[1] AS summary,
                 count(*)::int AS reports, min(reported_at) AS first_at, max(reported_at) AS last_at
          FROM problem_reports r WHERE r.product_id = ${id} AND r.revoked_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.product_id = r.product_id AND v.voter = r.voter AND v.counting <> 'counted')
          GROUP BY problem_key`
      )
      .pipe(storeError("problems"))
    return rows.map(
      (r): ReportedProblem => ({
        key: r.problem_key,
        summary: r.summary,
        reports: r.reports,
        firstReportedAt: r.first_at,
        lastReportedAt: r.last_at
      })
    )
  })
  return ProblemStore.of({ reported })
})

export const layer = Layer.effect(ProblemStore, make)
