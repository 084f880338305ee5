import { Effect, Layer, Redacted, References } from "effect"
import { HttpServer } from "effect/http"
import { CatalogStore, type Stores } from "@productdir/domain"
import * as MemoryStore from "@productdir/store-memory"
import { layerPglite, layerPostgres } from "@productdir/store-postgres"
import { freshDatabaseUrl, testStores } from "@productdir/store-postgres/testing"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { ProductdirClient } from "@productdir/client"
import { ApiConfig, HttpLive, Lifecycle, NodeServerLive } from "../src/index.ts"

export type StoreVariant = { readonly name: string; readonly stores: () => Layer.Layer<Stores, unknown> }

/** The SQL stores of this test run (store-postgres's testStores): PGlite, and the server of DATABASE_URL. */
export const storeVariants = (): ReadonlyArray<StoreVariant> => {
  const { pglite, server: url } = testStores()
  const variants: Array<StoreVariant> = pglite ? [{ name: "pglite", stores: () => layerPglite() }] : []
  if (url !== undefined) {
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
    // The server main.ts runs (its limits and its hot path), on a free loopback port.
    Layer.provideMerge(NodeServerLive),
    Layer.provideMerge(Lifecycle.layer),
    Layer.provideMerge(SampleSeeded),
    Layer.provideMerge(stores),
    // Warnings and errors only: the access log writes its lines on stdout itself, past the test runner, so a green
    // run printed thousands of them (its tests read a server process's own output: hot-reads.test.ts).
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Warn")),
    // Limits and the crowd defense off unless a test turns them on: most tests count votes exactly.
    Layer.provide(
      ApiConfig.layerWith({
        votesPerAddress: 0,
        votesPerVoter: 0,
        registrationsPerNetwork: {},
        anonymousVotesPerNetwork: {},
        directoryFetchesPerNetwork: {},
        burstGuard: undefined,
        ...overrides
      })
    )
  )

export const baseUrl = HttpServer.HttpServer.useSync((server) => HttpServer.formatAddress(server.address))

/** The typed client (@productdir/client) of the server under test, over the platform's fetch. */
export const apiClient = Effect.flatMap(baseUrl, (base) =>
  ProductdirClient.useSync((client) => client).pipe(Effect.provide(ProductdirClient.layer({ baseUrl: base })))
)

/** A newly registered agent of the server under test: its key, and a typed client that votes as it. */
export const registeredAgent = (name: string) =>
  Effect.gen(function* () {
    const base = yield* baseUrl
    const { agent_id, api_key } = yield* (yield* apiClient).agents.registerAgent({ payload: { name } })
    const client = yield* ProductdirClient.useSync((c) => c).pipe(
      Effect.provide(ProductdirClient.layer({ baseUrl: base, apiKey: Redacted.make(api_key) }))
    )
    return { agentId: agent_id, apiKey: api_key, client, authorization: { authorization: `Bearer ${api_key}` } }
  })
