/** The audit trail on PostgreSQL: the `audit_trail` table (migration 0023), appended, read newest first. */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type AuditAction, type AuditActor, type AuditEntry, AuditTrail } from "@productdir/domain"
import { storeError } from "./errors.ts"

interface AuditRow {
  readonly at: Date
  readonly actor_kind: AuditActor["kind"]
  readonly actor_domain: string | null
  readonly action: AuditAction
  readonly subject: string
  readonly reason: string | null
  readonly detail: string
}

const toEntry = (row: AuditRow): AuditEntry => ({
  at: row.at,
  actor: row.actor_kind === "publisher" ? { kind: "publisher", domain: row.actor_domain ?? "" } : { kind: row.actor_kind },
  action: row.action,
  subject: row.subject,
  reason: row.reason,
  detail: row.detail
})

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return AuditTrail.of({
    record: (entry) =>
      sql`INSERT INTO audit_trail (at, actor_kind, actor_domain, action, subject, reason, detail)
          VALUES (${entry.at}, ${entry.actor.kind}, ${entry.actor.kind === "publisher" ? entry.actor.domain : null}, ${entry.action},
                  ${entry.subject}, ${entry.reason}, ${entry.detail})`.pipe(storeError("audit"), Effect.asVoid),
    list: ({ subject, limit }) =>
      (subject === undefined
        ? sql<AuditRow>`SELECT at, actor_kind, actor_domain, action, subject, reason, detail FROM audit_trail ORDER BY id DESC LIMIT ${limit}`
        : sql<AuditRow>`SELECT at, actor_kind, actor_domain, action, subject, reason, detail FROM audit_trail
                        WHERE subject = ${subject} ORDER BY id DESC LIMIT ${limit}`
      ).pipe(
        storeError("audit"),
        Effect.map((rows) => rows.map(toEntry))
      )
  })
})

export const layer = Layer.effect(AuditTrail, make)
