/**
 * Transactions that may deadlock with each other by design retry when
 * PostgreSQL picks them as the victim: a vote by an agent and that agent's
 * revocation lock the same two rows, in an order the planner chooses
 * (SqlVoteLedger.ts). The retry sees what the winner committed.
 */
import { Effect } from "effect"
import { isSqlError } from "effect/sql/SqlError"

export const DEADLOCK_RETRIES = 3

const isDeadlock = (error: unknown) => isSqlError(error) && error.reason._tag === "DeadlockError"

export const retryDeadlocks = <A, E, R>(transaction: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(transaction, { while: isDeadlock, times: DEADLOCK_RETRIES })
