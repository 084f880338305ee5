/**
 * The audit trail (docs/decisions.md, "Publishers"): every action of an operator or a publisher that changes what
 * the directory says or who may say it, with who, when, what and why. Appended, never changed; read by the operators'
 * CLI (productdir-publishers audit).
 */

/** Who acted: an operator at the command line, a publisher by its domain, or the directory's own schedule. */
export type AuditActor =
  | { readonly kind: "operator" }
  | { readonly kind: "publisher"; readonly domain: string }
  | { readonly kind: "schedule" }

export type AuditAction = "claim" | "verify" | "suspend" | "restore" | "create" | "edit" | "reply" | "take-down" | "bring-back"

export interface AuditEntry {
  readonly at: Date
  readonly actor: AuditActor
  readonly action: AuditAction
  /** What it was done to: a publisher (`publisher:<id>`) or a product (`product:<id>`). */
  readonly subject: string
  /** Why, in the actor's words; null when none was given. */
  readonly reason: string | null
  /** What changed, in a line: the version made, the problem replied to, the domain claimed. */
  readonly detail: string
}

export const actorName = (actor: AuditActor): string =>
  actor.kind === "publisher" ? `publisher ${actor.domain}` : actor.kind === "operator" ? "operator" : "schedule"

export const productSubject = (id: string) => `product:${id}`
export const publisherSubject = (id: string) => `publisher:${id}`
