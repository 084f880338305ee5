/**
 * Nonces in PostgreSQL (`signature_nonces`): one row per claim, keyed by the
 * SHA-256 of what the caller claims, so every row is the same small size. A
 * claim on an expired row takes it over; a sweep deletes expired rows now and then.
 */
import { Duration, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { Nonces } from "@productdir/domain"
import { createHash } from "node:crypto"
import { storeError } from "./errors.ts"
import { stamp } from "./writeTime.ts"

const SWEEP_EVERY = Duration.minutes(1)

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const sweep = Effect.gen(function* () {
    const now = yield* stamp
    yield* sql`DELETE FROM signature_nonces WHERE expires_at < ${now}`
  }).pipe(Effect.catchCause((cause) => Effect.logDebug("nonce sweep failed; the next one retries", cause)))
  yield* Effect.forkScoped(Effect.repeat(Effect.andThen(Effect.sleep(SWEEP_EVERY), sweep), Schedule.forever))

  const claim = Effect.fn("Nonces.claim")(function* (key: string, expiresAt: Date) {
    const now = yield* stamp
    const digest = createHash("sha256").update(key).digest("hex")
    const rows = yield* sql<{ claimed: boolean }>`
      INSERT INTO signature_nonces AS n (key, expires_at) VALUES (decode(${digest}, 'hex'), ${expiresAt})
      ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE n.expires_at < ${now}
      RETURNING true AS claimed`.pipe(storeError("nonce"))
    return rows.length > 0
  })

  return Nonces.of({ claim })
})

export const layer = Layer.effect(Nonces, make)
