/**
 * JobLock on a PostgreSQL server: a session advisory lock held on a reserved
 * connection for the whole job, so one runner works at a time across machines.
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { fnv1a, JobLock, type LockOutcome } from "@productdir/domain"
import { storeError } from "./errors.ts"

/** Advisory lock keys are bigints; derive a stable one from the lock's name. */
export const lockKey = (name: string): number => parseInt(fnv1a(`productdir:${name}`), 36)

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return JobLock.of({
    withLock: <A, E, R>(name: string, options: { readonly wait: boolean }, effect: Effect.Effect<A, E, R>) =>
      Effect.scoped(
        Effect.gen(function* () {
          const connection = yield* sql.reserve.pipe(storeError("lock"))
          const key = lockKey(name)
          if (options.wait) {
            yield* connection.execute("SELECT pg_advisory_lock($1)", [key], undefined).pipe(storeError("lock"))
          } else {
            const [row] = yield* connection.execute("SELECT pg_try_advisory_lock($1) AS locked", [key], undefined).pipe(storeError("lock"))
            if (row?.locked !== true) return { _tag: "Busy" } as LockOutcome<A>
          }
          yield* Effect.addFinalizer(() => connection.execute("SELECT pg_advisory_unlock($1)", [key], undefined).pipe(Effect.ignore))
          const value = yield* effect
          return { _tag: "Ran", value } as LockOutcome<A>
        })
      )
  })
})

export const layer = Layer.effect(JobLock, make)
