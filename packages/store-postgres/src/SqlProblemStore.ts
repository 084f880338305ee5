/**
 * ProblemStore on PostgreSQL: reports aggregated per normalised reason; a revoked agent's reports are
 * not counted. A product read: on a replica that has its last change, else the primary (ReadReplicas.ts).
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
          FROM problem_reports WHERE product_id = ${id} AND revoked_at IS NULL
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
