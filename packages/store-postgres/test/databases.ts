/** Empty databases of their own, as client layers: PGlite always, and the server of DATABASE_URL when it is set. */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import { PgliteClient } from "../src/index.ts"
import { freshDatabaseUrl } from "../src/testing.ts"

export type Client = PgClient.PgClient | SqlClient.SqlClient

export const databases: ReadonlyArray<{ readonly name: string; readonly client: () => Layer.Layer<Client, unknown> }> = [
  { name: "pglite", client: () => PgliteClient.layerInMemory() },
  ...(process.env.DATABASE_URL
    ? [
        {
          name: "postgres",
          client: () =>
            Layer.unwrap(
              Effect.map(freshDatabaseUrl(process.env.DATABASE_URL!), ({ url }) =>
                PgClient.layer({ url: Redacted.make(url), maxConnections: 4 })
              )
            )
        }
      ]
    : [])
]
