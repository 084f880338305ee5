/**
 * A real API server on a loopback socket (port 0) over a real store: PGlite
 * always, and a fresh database on the PostgreSQL server when DATABASE_URL is set.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { CatalogStore, MemoryStore } from "@productdir/domain"
import { layerPglite, layerPostgres, type Stores } from "@productdir/postgres"
import { freshDatabaseUrl } from "@productdir/postgres/testing"
import { sampleCatalog } from "@productdir/testkit/sample"
import { createServer } from "node:http"
import { ApiConfig, HttpLive } from "../src/index.ts"

export type StoreVariant = { readonly name: string; readonly stores: () => Layer.Layer<Stores, unknown> }

export const storeVariants = (): ReadonlyArray<StoreVariant> => {
  const url = process.env.DATABASE_URL
  const variants: Array<StoreVariant> = [{ name: "pglite", stores: () => layerPglite() }]
  if (url !== undefined && url !== "") {
    variants.push({
      name: "postgres",
      stores: () => Layer.unwrap(Effect.map(freshDatabaseUrl(url), ({ url }) => layerPostgres(Redacted.make(url))))
    })
  }
  return variants
}

export const memoryStores = () => MemoryStore.layer

const SampleSeeded = Layer.effectDiscard(CatalogStore.use((catalog) => catalog.upsert(sampleCatalog())))

/** The served API with the sample catalog loaded; the stores stay reachable for assertions. */
export const serverLayer = <S extends Stores>(stores: Layer.Layer<S, unknown>, overrides: Partial<ApiConfig.ApiSettings> = {}) =>
  HttpLive.pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(SampleSeeded),
    Layer.provideMerge(stores),
    Layer.provide(ApiConfig.layerWith({ votesPerAddress: 0, votesPerVoter: 0, ...overrides }))
  )

export const baseUrl = HttpServer.HttpServer.useSync((server) => HttpServer.formatAddress(server.address))
