/**
 * Whether the embedded database is alive, for a liveness probe: a PGlite that stopped (an exchange that never
 * ends) is only brought back by a restart, and a /healthz that kept answering 200 meant nothing restarted it.
 * Present on the embedded store a process owns; a server's store has none (a server that stops is the
 * readiness probe's to say, and reconnecting is the client's).
 */
import { Context, Effect } from "effect"
import type { DiskState } from "./embedded/DiskGuard.ts"

/** An exchange that has taken this long is a database that has stopped: no statement of ours runs for so long. */
export const STALLED_AFTER_MS = 30_000

export class StoreHealth extends Context.Service<
  StoreHealth,
  {
    /** Milliseconds the database has been on one exchange, once that is past STALLED_AFTER_MS; else undefined. */
    readonly stalled: () => number | undefined
    /** Its disk, and whether writes are refused for want of space (embedded/DiskGuard.ts). */
    readonly disk: () => DiskState
    /**
     * From now on, writes are refused while the disk is low: run once the process has started (its migrations and
     * settings are written whatever the disk holds). Idempotent.
     */
    readonly armDiskGuard: Effect.Effect<void>
  }
>()("@productdir/store-postgres/StoreHealth") {}

/** Arms the disk guard of the store this process owns, if it owns an embedded one. */
export const armDiskGuard = Effect.flatMap(Effect.serviceOption(StoreHealth), (health) =>
  health._tag === "Some" ? health.value.armDiskGuard : Effect.void
)
