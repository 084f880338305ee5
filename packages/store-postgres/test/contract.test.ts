import { Effect, Layer, Redacted } from "effect"
import { relevanceSuite, storeContract } from "@productdir/testkit"
import { layerPglite, layerPostgres } from "../src/index.ts"
import { freshDatabaseUrl } from "../src/testing.ts"
import { layerSqlBackdoor } from "./backdoor.ts"

storeContract("pglite", layerSqlBackdoor.pipe(Layer.provideMerge(layerPglite())))
relevanceSuite("pglite", layerPglite())

const serverUrl = process.env.DATABASE_URL
if (serverUrl !== undefined && serverUrl !== "") {
  storeContract(
    "postgres",
    layerSqlBackdoor.pipe(
      Layer.provideMerge(Layer.unwrap(Effect.map(freshDatabaseUrl(serverUrl), ({ url }) => layerPostgres(Redacted.make(url)))))
    )
  )
  relevanceSuite("postgres", Layer.unwrap(Effect.map(freshDatabaseUrl(serverUrl), ({ url }) => layerPostgres(Redacted.make(url)))))
}
