/** The client's own wiring; the client against a running API is tested in apps/api (published-packages). */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { type AgentView, type Client, ProductdirClient, type ProductRecord } from "../src/index.ts"

/** An HTTP client that answers every request itself and keeps what it was sent. */
const recording = () => {
  const sent: Array<{ readonly url: string; readonly headers: Record<string, string> }> = []
  const layer = Layer.succeed(
    HttpClient.HttpClient,
    HttpClient.make((request) => {
      sent.push({ url: request.url, headers: request.headers })
      return Effect.succeed(
        HttpClientResponse.fromWeb(
          request,
          new Response(JSON.stringify({ status: "ok" }), { headers: { "content-type": "application/json" } })
        )
      )
    })
  )
  return { sent, layer }
}

describe("ProductdirClient", () => {
  it.effect("sends requests under the base URL, with the agent's key as a bearer token when given", () =>
    Effect.gen(function* () {
      const plain = recording()
      yield* ProductdirClient.use((client) => client.directory.healthz()).pipe(
        Effect.provide(ProductdirClient.layerWithHttpClient({ baseUrl: "https://dir.example/api" }).pipe(Layer.provide(plain.layer)))
      )
      expect(plain.sent[0]?.url).toBe("https://dir.example/api/healthz")
      expect(plain.sent[0]?.headers.authorization).toBeUndefined()

      const agent = recording()
      yield* ProductdirClient.use((client) => client.directory.healthz()).pipe(
        Effect.provide(
          ProductdirClient.layerWithHttpClient({ baseUrl: "https://dir.example", apiKey: Redacted.make("pd_secret") }).pipe(
            Layer.provide(agent.layer)
          )
        )
      )
      expect(agent.sent[0]?.headers.authorization).toBe("Bearer pd_secret")
    })
  )

  it("types getEntity's answer by the format asked for (checked by tsc: the package's typecheck covers tests)", () => {
    // Never run: only the types of these calls matter.
    const reads = (client: Client, format: "json" | "agent") => ({
      agent: client.entities.getEntity({ params: { slug: "tallyhouse" }, query: { format: "agent" } }),
      json: client.entities.getEntity({ params: { slug: "tallyhouse" }, query: { format: "json" } }),
      absent: client.entities.getEntity({ params: { slug: "tallyhouse" }, query: {} }),
      either: client.entities.getEntity({ params: { slug: "tallyhouse" }, query: { format } }),
      withResponse: client.entities.getEntity({
        params: { slug: "tallyhouse" },
        query: { format: "agent" },
        responseMode: "decoded-and-response"
      })
    })
    type Reads = ReturnType<typeof reads>
    expectTypeOf<Effect.Success<Reads["agent"]>>().toEqualTypeOf<AgentView>()
    expectTypeOf<Effect.Success<Reads["json"]>>().toEqualTypeOf<ProductRecord>()
    expectTypeOf<Effect.Success<Reads["absent"]>>().toEqualTypeOf<ProductRecord>()
    expectTypeOf<Effect.Success<Reads["either"]>>().toEqualTypeOf<AgentView | ProductRecord>()
    expectTypeOf<Effect.Success<Reads["withResponse"]>[0]>().toEqualTypeOf<AgentView>()
    expect(typeof reads).toBe("function")
  })
})
