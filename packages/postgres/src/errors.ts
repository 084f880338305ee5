import { Effect } from "effect"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import { StoreError } from "@productdir/domain"

/**
 * SQL failures leave the store as a StoreError naming the operation; the
 * driver's error goes to the log, never to a client.
 */
export const storeError = (operation: string) =>
<A, E, R>(self: Effect.Effect<A, E | SqlError, R>): Effect.Effect<A, Exclude<E, SqlError> | StoreError, R> =>
  Effect.catchIf(
    self,
    isSqlError,
    (error) =>
      Effect.logError(`store: ${operation} failed`, error).pipe(
        Effect.andThen(Effect.fail(new StoreError({ operation, detail: error.reason._tag })))
      )
  ) as Effect.Effect<A, Exclude<E, SqlError> | StoreError, R>
