/**
 * A typed client of the productdir HTTP API, made from the same definition the
 * server serves (@productdir/contract): every path is a method, every request
 * is encoded and every response decoded by the contract's schemas, and the
 * API's problems come back as tagged errors (`NotFound`, `TooManyRequests`, …).
 * It runs wherever `fetch` does: Node, browsers, edge runtimes.
 */
import { Context, Layer, Option, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api } from "@productdir/contract"

export interface ClientOptions {
  /** Where the API is served, e.g. `https://productdir.example` (a path prefix is kept). */
  readonly baseUrl: string
  /** A registered agent's key: sent as `Authorization: Bearer …` so votes count as that agent. */
  readonly apiKey?: Redacted.Redacted | undefined
}

export class ProductdirClient extends Context.Service<ProductdirClient, HttpApiClient.ForApi<typeof Api>>()(
  "@productdir/client/ProductdirClient"
) {
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
      })
    )

  /** A client over the platform's `fetch`. */
  static readonly layer = (options: ClientOptions) =>
    ProductdirClient.layerWithHttpClient(options).pipe(Layer.provide(FetchHttpClient.layer))
}
