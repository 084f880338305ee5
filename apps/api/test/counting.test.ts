/**
 * How votes count, as a client sees it (docs/api.md, "How votes count"): the vote's answer says
 * whether it counted or waits, the agent view says how the product's trust was formed, and with
 * CROWD_DEFENSE=off every vote counts at once, however many come together.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { DEFAULT_BURST_GUARD, MILLI, PRIOR, VOTE_WEIGHTS } from "@productdir/domain"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { layerWithState } from "@productdir/store-memory/testing"
import { baseUrl, registeredAgent, serverLayer } from "./harness.ts"
import { bodyOf, postJson, request } from "./http.ts"

const catalog = sampleCatalog()

interface Outcome {
  readonly status: string
  readonly counted_as: "agent" | "address"
  readonly counting: "counted" | "held" | "discounted"
  readonly trust: { readonly trust_up: number; readonly trust_down: number }
}

interface Formation {
  readonly trust_formation: {
    readonly seed: { readonly up: number; readonly down: number }
    readonly agents: { readonly up: number; readonly down: number }
    readonly addresses: { readonly up: number; readonly down: number }
    readonly held: number
    readonly discounted: number
  }
}

const formationOf = (base: string, id: string) =>
  Effect.map(request(`${base}/entities/${id}?format=agent`), (reply) => bodyOf<Formation>(reply).trust_formation)

describe("how votes count, with the crowd defense on (its defaults)", () => {
  layer(Layer.merge(serverLayer(layerWithState, { burstGuard: DEFAULT_BURST_GUARD, trustProxy: 1 }), layerWithState), {
    excludeTestServices: true
  })((it) => {
    it.effect("a handful of votes on a quiet product counts at once; past the floor, new votes wait and say so", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const product = catalog[5]!
        const replies = []
        for (let i = 0; i < 14; i++) {
          const reply = yield* postJson(
            `${base}/vote`,
            { entity_id: product.id, direction: "down" },
            { "x-forwarded-for": `198.51.${i}.7` }
          )
          replies.push(bodyOf<Outcome>(reply))
        }
        expect(replies.map((r) => r.counting)).toEqual([...Array(DEFAULT_BURST_GUARD.floor).fill("counted"), ...Array(4).fill("held")])
        // A held vote moves nothing: the answer's counters are the counted ones.
        expect(replies.at(-1)!.trust.trust_down).toBe(product.seed.down + DEFAULT_BURST_GUARD.floor)
        expect(yield* formationOf(base, product.id)).toEqual({
          seed: product.seed,
          agents: { up: 0, down: 0 },
          addresses: { up: 0, down: DEFAULT_BURST_GUARD.floor },
          // Each counted vote by what it weighs: an address's a hundredth of a vote.
          weights: [{ weight: VOTE_WEIGHTS.address / MILLI, up: 0, down: DEFAULT_BURST_GUARD.floor }],
          prior: PRIOR,
          judged_share: expect.closeTo(
            (product.seed.up * MILLI + PRIOR.votes * PRIOR.share * MILLI) /
              ((product.seed.up + product.seed.down) * MILLI + DEFAULT_BURST_GUARD.floor * VOTE_WEIGHTS.address + PRIOR.votes * MILLI),
            12
          ),
          held: 4,
          held_because: [{ reason: "anonymous", votes: 4, explanation: expect.stringContaining("a flood of addresses") }],
          discounted: 0
        })
      })
    )

    it.effect("an agent's vote is told apart from an address's in the formation", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const product = catalog[6]!
        const agent = yield* registeredAgent("formation-agent")
        const asAgent = yield* postJson(
          `${base}/vote`,
          { entity_id: product.id },
          { ...agent.authorization, "x-forwarded-for": "203.0.113.9" }
        )
        // A fresh agent's vote weighs a fortieth of a vote in the judgement, an address's a hundredth: each counts one.
        expect(bodyOf<Outcome>(asAgent)).toMatchObject({ counted_as: "agent", counting: "counted", weight: 0.025 })
        const asAddress = yield* postJson(
          `${base}/vote`,
          { entity_id: product.id, direction: "down" },
          { "x-forwarded-for": "203.0.113.10" }
        )
        expect(bodyOf<Outcome>(asAddress)).toMatchObject({ counted_as: "address", counting: "counted", weight: 0.01 })
        expect(yield* formationOf(base, product.id)).toMatchObject({ agents: { up: 1, down: 0 }, addresses: { up: 0, down: 1 }, held: 0 })
      })
    )
  })
})

describe("how votes count, with CROWD_DEFENSE=off", () => {
  layer(Layer.merge(serverLayer(layerWithState, { burstGuard: undefined }), layerWithState), { excludeTestServices: true })((it) => {
    it.effect("200 votes by 200 agents on one product, 64 at a time, count 200 at once", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const product = catalog[7]!
        const agents = yield* Effect.forEach(
          Array.from({ length: 200 }, (_, i) => i),
          (i) => registeredAgent(`crowd-off-${i}`),
          {
            concurrency: 16
          }
        )
        // 64 at a time: one client address may hold 128 connections (HTTP_MAX_CONNECTIONS_PER_ADDRESS).
        const replies = yield* Effect.forEach(agents, (agent) => postJson(`${base}/vote`, { entity_id: product.id }, agent.authorization), {
          concurrency: 64
        })
        expect(new Set(replies.map((r) => r.status))).toEqual(new Set([201]))
        expect(new Set(replies.map((r) => bodyOf<Outcome>(r).counting))).toEqual(new Set(["counted"]))
        expect(yield* formationOf(base, product.id)).toMatchObject({ agents: { up: 200, down: 0 }, held: 0 })
      })
    )
  })
})
