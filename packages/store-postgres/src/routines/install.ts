/**
 * Installs the routines at start, after the migrations: those whose statements hash differently from
 * what the database recorded (productdir_routines) are installed, all in one transaction under an
 * advisory lock (processes starting together install once), and their rewrites are recorded as to do
 * (productdir_rewrites) in the same transaction. Then every rewrite left to do, this start's or one an
 * earlier process stopped in the middle of, goes on in batches; a process finds a batch another one is
 * writing locked, and leaves the rest to it.
 */
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { batches } from "./rewrites.ts"
import { hashOf, type Rewrite, type Routine } from "./Routine.ts"

/** The advisory lock installers take (an arbitrary key of this project's). */
const INSTALL_LOCK = 0x70640002
const FIRST_ID = "00000000-0000-0000-0000-000000000000"

export interface Installed {
  /** The routines installed by this start. */
  readonly installed: ReadonlyArray<string>
  /** Rows rewritten by this start, per rewrite. */
  readonly rewritten: Readonly<Partial<Record<Rewrite, number>>>
}

/** Installs what changed of `routines`, then finishes every rewrite left to do. */
export const installRoutines = (routines: ReadonlyArray<Routine>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = new Date(yield* Clock.currentTimeMillis)
    const installed = yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(${INSTALL_LOCK})`
        const recorded = new Map(
          (yield* sql<{ name: string; hash: string }>`SELECT name, hash FROM productdir_routines`).map((r) => [r.name, r.hash])
        )
        const changed = routines.filter((routine) => recorded.get(routine.name) !== hashOf(routine))
        for (const routine of changed) {
          for (const statement of routine.statements) yield* sql.unsafe(statement)
          yield* sql`
            INSERT INTO productdir_routines (name, hash, installed_at) VALUES (${routine.name}, ${hashOf(routine)}, ${now})
            ON CONFLICT (name) DO UPDATE SET hash = EXCLUDED.hash, installed_at = EXCLUDED.installed_at`
        }
        // A rewrite starts over from the first product, whatever an earlier one had come to.
        for (const rewrite of new Set(changed.flatMap((routine) => routine.rewrites ?? []))) {
          yield* sql`
            INSERT INTO productdir_rewrites (name, after, started_at) VALUES (${rewrite}, ${FIRST_ID}::uuid, ${now})
            ON CONFLICT (name) DO UPDATE SET after = EXCLUDED.after, started_at = EXCLUDED.started_at`
        }
        return changed.map((routine) => routine.name)
      })
    )
    const rewritten: Partial<Record<Rewrite, number>> = {}
    for (const { name } of yield* sql<{ name: Rewrite }>`SELECT name FROM productdir_rewrites ORDER BY name`) {
      rewritten[name] = yield* finish(sql, name)
    }
    return { installed, rewritten } satisfies Installed
  })

/** Rewrites batch by batch until none is left, or another process holds the rewrite; the rows it wrote. */
const finish = (sql: SqlClient.SqlClient, rewrite: Rewrite) =>
  Effect.gen(function* () {
    let written = 0
    for (;;) {
      const step = yield* sql.withTransaction(
        Effect.gen(function* () {
          const [row] = yield* sql<{ after: string }>`
            SELECT after::text FROM productdir_rewrites WHERE name = ${rewrite} FOR UPDATE SKIP LOCKED`
          if (row === undefined) return "elsewhere" as const
          const batch = yield* batches[rewrite](sql, row.after)
          written += batch.written
          if (batch.last === null) yield* sql`DELETE FROM productdir_rewrites WHERE name = ${rewrite}`
          else yield* sql`UPDATE productdir_rewrites SET after = ${batch.last}::uuid WHERE name = ${rewrite}`
          return batch.last === null ? ("done" as const) : ("more" as const)
        })
      )
      if (step !== "more") return written
    }
  })
