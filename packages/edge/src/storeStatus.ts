/**
 * What a door may tell of the store behind it: whether the embedded database has stalled (`/healthz`) and which
 * database servers it reaches (`/readyz`). The app gives it from the store it chose (apps/api/src/storeStatus.ts):
 * a door knows no store adapter.
 */
import { Context } from "effect"

/** One database server as `/readyz` lists it to whoever may read an operator's figures. */
export interface ServerStatus {
  readonly role: "primary" | "replica"
  /** host:port/database, never a password. */
  readonly server: string
  readonly reachable: boolean
  /** Whether reads are sent to it now (a replica that answers and is a standby). */
  readonly serving?: boolean
  /** Why it is not reachable or not serving. */
  readonly detail?: string
}

export class StoreStatus extends Context.Service<
  StoreStatus,
  {
    /** Milliseconds the embedded database has been on one exchange, once it counts as stalled; else undefined. */
    readonly stalled: () => number | undefined
    /** The primary, then its replicas; none for a store without servers (embedded, in memory). */
    readonly servers: () => ReadonlyArray<ServerStatus>
  }
>()("@productdir/edge/StoreStatus") {}
