/** A lock that lets one job runner work at a time, across processes where the store allows it. */
import { Context, type Effect } from "effect"
import type { StoreError } from "../support/errors.ts"

export type LockOutcome<A> = { readonly _tag: "Ran"; readonly value: A } | { readonly _tag: "Busy" }

export class JobLock extends Context.Service<
  JobLock,
  {
    /**
     * Runs `effect` while holding the named lock. With `wait`, waits for a
     * holder to finish; without, answers Busy at once when the lock is held.
     */
    readonly withLock: <A, E, R>(
      name: string,
      options: { readonly wait: boolean },
      effect: Effect.Effect<A, E, R>
    ) => Effect.Effect<LockOutcome<A>, E | StoreError, R>
  }
>()("@productdir/domain/JobLock") {}
