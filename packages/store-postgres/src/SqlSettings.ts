/** Settings on PostgreSQL: the `settings` table. */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Settings } from "@productdir/domain"
import { storeError } from "./errors.ts"

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const getOrInit = Effect.fn("Settings.getOrInit")(function* (key: string, initial: string) {
    yield* sql`INSERT INTO settings (key, value) VALUES (${key}, ${initial}) ON CONFLICT (key) DO NOTHING`.pipe(storeError("settings"))
    const rows = yield* sql<{ value: string }>`SELECT value FROM settings WHERE key = ${key}`.pipe(storeError("settings"))
    return rows[0]?.value ?? initial
  })
  return Settings.of({ getOrInit })
})

export const layer = Layer.effect(Settings, make)
