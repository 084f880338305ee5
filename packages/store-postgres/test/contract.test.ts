import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { Effect, Layer, Redacted } from "effect"
import { relevanceSuite, storeContract } from "@productdir/testkit"
import { layerPglite, layerPostgres } from "../src/index.ts"
import { freshDatabaseUrl, testStores } from "../src/testing.ts"
import { layerSqlOperatorEdits } from "./operatorEdits.ts"

const { pglite, server: serverUrl } = testStores()
reportLeftOut("store contract", storesLeftOut())
if (pglite) {
  storeContract("pglite", layerSqlOperatorEdits.pipe(Layer.provideMerge(layerPglite())))
  relevanceSuite("pglite", layerPglite())
}
if (serverUrl !== undefined) {
  storeContract(
    "postgres",
    layerSqlOperatorEdits.pipe(
      Layer.provideMerge(Layer.unwrap(Effect.map(freshDatabaseUrl(serverUrl), ({ url }) => layerPostgres(Redacted.make(url)))))
    )
  )
  relevanceSuite("postgres", Layer.unwrap(Effect.map(freshDatabaseUrl(serverUrl), ({ url }) => layerPostgres(Redacted.make(url)))))
}
