import { type Cause, Effect } from "effect"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import { StoreError } from "@productdir/domain"

/** The driver's error behind a failure: a typed SqlError, or one the SQL client turned into a defect. */
const sqlErrorIn = (cause: Cause.Cause<unknown>): SqlError | undefined => {
  for (const reason of cause.reasons) {
    if (reason._tag === "Fail" && isSqlError(reason.error)) return reason.error
    // A failed ROLLBACK or COMMIT (the connection died mid-transaction) reaches us as a defect.
    if (reason._tag === "Die" && isSqlError(reason.defect)) return reason.defect
  }
  return undefined
}

/**
 * SQL failures leave the store as a StoreError naming the operation, with the
 * driver's error as its cause for the logs; never a client's concern, and never
 * a 500: a store that failed is unavailable (503), whatever the driver said.
 */
export const storeError =
  (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E | SqlError, R>): Effect.Effect<A, Exclude<E, SqlError> | StoreError, R> =>
    Effect.catchCause(self, (cause): Effect.Effect<never, Exclude<E, SqlError> | StoreError> => {
      const error = sqlErrorIn(cause)
      if (error === undefined) return Effect.failCause(cause as Cause.Cause<Exclude<E, SqlError>>)
      return Effect.logError(`store: ${operation} failed`, error).pipe(
        Effect.andThen(Effect.fail(new StoreError({ operation, detail: error.reason._tag, cause: error })))
      )
    })
