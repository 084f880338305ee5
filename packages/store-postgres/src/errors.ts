import { type Cause, Context, Effect, type LogLevel } from "effect"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import { StoreError, type StoreFault } from "@productdir/domain"

/** The driver's error behind a failure: a typed SqlError, or one the SQL client turned into a defect. */
const sqlErrorIn = (cause: Cause.Cause<unknown>): SqlError | undefined => {
  for (const reason of cause.reasons) {
    if (reason._tag === "Fail" && isSqlError(reason.error)) return reason.error
    // A failed ROLLBACK or COMMIT (the connection died mid-transaction) reaches us as a defect.
    if (reason._tag === "Die" && isSqlError(reason.defect)) return reason.defect
  }
  return undefined
}

/** What PostgreSQL said, as the driver keeps it on the reason's cause (an ErrorResponse's fields). */
interface ServerFields {
  readonly code?: string
  readonly message?: string
  readonly constraint?: string
  readonly column?: string
}

const fieldsOf = (error: SqlError): ServerFields => {
  const cause: unknown = error.reason.cause
  return typeof cause === "object" && cause !== null ? (cause as ServerFields) : {}
}

/**
 * The fault behind an SQLSTATE: 53100 is a full disk (PGlite reports the file system's ENOSPC in
 * the message only); 25006, a write refused by a read-only session (the embedded store's disk kept in reserve:
 * embedded/DiskGuard.ts, or a replica); classes 22 (data exception), 23 (integrity constraint) and 54 (a program
 * limit, such as an index row too large) come from the data written.
 */
export const faultOf = (fields: ServerFields): StoreFault => {
  const code = fields.code ?? ""
  if (code === "53100" || /no space left on device/i.test(fields.message ?? "")) return "disk-full"
  if (code === "25006") return "read-only"
  if (code.startsWith("22") || code.startsWith("23") || code.startsWith("54")) return "data"
  return "unavailable"
}

/** A StoreError for `error`, classified, with the constraint or column the server named. */
export const toStoreError = (operation: string, error: SqlError): StoreError => {
  const fields = fieldsOf(error)
  const fault = faultOf(fields)
  return new StoreError({
    operation,
    detail: fault === "unavailable" ? error.reason._tag : (fields.message ?? error.reason._tag),
    fault,
    ...(fields.constraint === undefined ? {} : { constraint: fields.constraint }),
    ...(fields.column === undefined ? {} : { column: fields.column }),
    cause: error
  })
}

/**
 * The level a store failure is logged at, with the driver's error, where it happens: an error
 * for a server's operators. A command-line tool prints one line of its own for the failure that
 * ends it, so it lowers this (runtime's `layerCli`): its user sees that line alone.
 */
export const FailureLogLevel = Context.Reference<LogLevel.Severity>("@productdir/store-postgres/FailureLogLevel", {
  defaultValue: () => "Error"
})

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
      return Effect.gen(function* () {
        yield* Effect.logWithLevel(yield* FailureLogLevel)(`store: ${operation} failed`, error)
        return yield* toStoreError(operation, error)
      })
    })
