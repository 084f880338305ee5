/** The audit trail: operators' and publishers' actions, appended and read back (audit/AuditEntry.ts). */
import { Context, type Effect } from "effect"
import type { StoreError } from "../support/errors.ts"
import type { AuditEntry } from "../audit/AuditEntry.ts"

export class AuditTrail extends Context.Service<
  AuditTrail,
  {
    readonly record: (entry: AuditEntry) => Effect.Effect<void, StoreError>
    /** The latest entries first, of one subject when given, at most `limit`. */
    readonly list: (query: {
      readonly subject: string | undefined
      readonly limit: number
    }) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreError>
  }
>()("@productdir/domain/AuditTrail") {}
