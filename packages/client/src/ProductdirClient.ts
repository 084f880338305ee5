/**
 * A typed client of the productdir HTTP API, made from the same definition the
 * server serves (@productdir/contract): every path is a method, every request
 * is encoded and every response decoded by the contract's schemas, and the
 * API's problems come back as tagged errors (`NotFound`, `TooManyRequests`, …).
 * It runs wherever `fetch` does: Node, browsers, edge runtimes.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api } from "@productdir/contract"
import { byFormat, type EntityReads } from "./byFormat.ts"

export type { EntityReads, EntityRequest, GetEntity } from "./byFormat.ts"

export interface ClientOptions {
  /** Where the API is served, e.g. `https://productdir.example` (a path prefix is kept). */
  readonly baseUrl: string
  /** A registered agent's key: sent as `Authorization: Bearer …` so votes count as that agent. */
  readonly apiKey?: Redacted.Redacted | undefined
}

type Generated = HttpApiClient.ForApi<typeof Api>

/**
 * The API's client, with each read that takes a `format` typed by it: `getEntity` with
 * `format: "agent"` is an `AgentView`, without it (or `"json"`) a `ProductRecord`.
 */
export type Client = Omit<Generated, "entities"> & { readonly entities: EntityReads }

export class ProductdirClient extends Context.Service<ProductdirClient, Client>()("@productdir/client/ProductdirClient") {
  /** A client over the given `HttpClient` (provide one: `FetchHttpClient.layer`, a Node or test client). */
  static readonly layerWithHttpClient = (options: ClientOptions) =>
    Layer.effect(
      ProductdirClient,
      HttpApiClient.make(Api, {
        baseUrl: options.baseUrl,
        transformClient: (client) =>
          Option.fromNullishOr(options.apiKey).pipe(
            Option.match({
              onNone: () => client,
              onSome: (key) => HttpClient.mapRequest(client, HttpClientRequest.bearerToken(Redacted.value(key)))
            })
          )
      }).pipe(Effect.map((generated): Client => ({ ...generated, entities: byFormat(generated.entities) })))
    )

  /** A client over the platform's `fetch`. */
  static readonly layer = (options: ClientOptions) =>
    ProductdirClient.layerWithHttpClient(options).pipe(Layer.provide(FetchHttpClient.layer))
}
