/** What productdir-publishers prints: tables and details for people, JSON for scripts. */
import { type AuditEntry, actorName, type Publisher } from "@productdir/domain"

const when = (date: Date | null) => (date === null ? "-" : date.toISOString().slice(0, 19).replace("T", " "))

export const publisherJson = (p: Publisher) => ({
  publisher_id: p.id,
  domain: p.domain,
  status: p.status,
  method: p.method,
  created_at: p.createdAt.toISOString(),
  verified_at: p.verifiedAt?.toISOString() ?? null,
  last_checked_at: p.checkedAt?.toISOString() ?? null,
  failed_checks: p.failedChecks,
  note: p.checkNote,
  suspended_at: p.suspendedAt?.toISOString() ?? null
})

export const auditJson = (e: AuditEntry) => ({
  at: e.at.toISOString(),
  actor: actorName(e.actor),
  action: e.action,
  subject: e.subject,
  reason: e.reason,
  detail: e.detail
})

const pad = (rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join("  ")
        .trimEnd()
    )
    .join("\n")
}

export const publisherTable = (publishers: ReadonlyArray<Publisher>) =>
  pad([
    ["ID", "DOMAIN", "STATUS", "PROVEN BY", "VERIFIED", "LAST CHECK", "MISSES"],
    ...publishers.map((p) => [p.id, p.domain, p.status, p.method ?? "-", when(p.verifiedAt), when(p.checkedAt), String(p.failedChecks)])
  ])

export const auditLines = (entries: ReadonlyArray<AuditEntry>) =>
  entries.map(
    (e) => `${when(e.at)}  ${actorName(e.actor)}  ${e.action}  ${e.subject}  ${e.detail}${e.reason === null ? "" : `  (why: ${e.reason})`}`
  )

export const publisherDetails = (p: Publisher, audit: ReadonlyArray<AuditEntry>) =>
  [
    `publisher ${p.id}`,
    `  domain       ${p.domain}`,
    `  status       ${p.status}${p.suspendedAt === null ? "" : ` since ${when(p.suspendedAt)}`}`,
    `  proven by    ${p.method ?? "- (not yet)"}`,
    `  claimed      ${when(p.createdAt)}`,
    `  verified     ${when(p.verifiedAt)}`,
    `  last check   ${when(p.checkedAt)} (${p.failedChecks} missed in a row)`,
    ...(p.checkNote === null ? [] : [`  note         ${p.checkNote}`]),
    "",
    audit.length === 0 ? "no audit entries" : "audit trail, latest first:",
    ...auditLines(audit).map((line) => `  ${line}`)
  ].join("\n")
