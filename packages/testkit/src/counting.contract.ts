/**
 * How votes count (packages/domain/src/trust/voteCounting.ts): without a guard every vote counts at once;
 * with one, a handful of votes on a quiet product counts and a burst beyond it waits (held), moving
 * no counter; a vote's budgets are drawn on only when it records or changes something; the ledger
 * tells how a product's trust was formed.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import {
  VOTE_WEIGHTS,
  addressVoter,
  agentVoter,
  type AgentId,
  AgentRegistry,
  type BurstGuard,
  DEFAULT_BURST_GUARD,
  CatalogStore,
  type Limit,
  VoteLedger
} from "@productdir/domain"
import { freshInput, rng, upsertOne } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

const GUARD: BurstGuard = DEFAULT_BURST_GUARD

const countersOf = (id: string) =>
  Effect.map(
    CatalogStore.use((s) => s.find(id)),
    (p) => p.counters
  )

export const countingBehaviours = (it: ContractIt) => {
  it.effect("without a guard, N concurrent votes by N voters are N counted at once", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput()
      yield* upsertOne(input)
      const results = yield* Effect.all(
        Array.from({ length: 40 }, (_, i) => ledger.cast({ entity: input.id, voter: addressVoter(`crowd-${i}`), direction: "up" })),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(new Set(results.map((r) => r.counting)), new Set(["counted"]))
      assert.deepStrictEqual(yield* countersOf(input.id), { up: 40, down: 0 })
    })
  )

  it.effect("with the guard, a handful of votes on a quiet product counts; a burst past the floor waits, moving nothing", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput({ seed: { up: 5, down: 5 } })
      yield* upsertOne(input)
      const results = []
      for (let i = 0; i < 25; i++) {
        results.push(yield* ledger.cast({ entity: input.id, voter: addressVoter(`burst-${i}`), direction: "down", guard: GUARD }))
      }
      // The floor (10 votes in the hour) passes; the 11th is past it, with a week of nothing behind it.
      assert.deepStrictEqual(
        results.map((r) => r.counting),
        [...Array(10).fill("counted"), ...Array(15).fill("held")]
      )
      assert.deepStrictEqual(results.at(-1)!.counters, { up: 5, down: 15 })
      assert.deepStrictEqual(yield* countersOf(input.id), { up: 5, down: 15 })
      assert.deepStrictEqual(yield* ledger.formation(input.id), {
        agents: { up: 0, down: 0 },
        addresses: { up: 0, down: 10 },
        byWeight: [{ weight: VOTE_WEIGHTS.address, up: 0, down: 10 }],
        held: 15,
        // Addresses' votes in a burst: they count only when agents or established voters carry it.
        heldBy: { waiting: 0, anonymous: 15, reversal: 0, group: 0 },
        discounted: 0
      })
    })
  )

  it.effect("a held vote changed stays held and moves nothing; a counted one changed moves its counts", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput()
      yield* upsertOne(input)
      for (let i = 0; i < 11; i++) yield* ledger.cast({ entity: input.id, voter: addressVoter(`flip-${i}`), direction: "up", guard: GUARD })
      assert.deepStrictEqual(yield* countersOf(input.id), { up: 10, down: 0 })
      const heldFlip = yield* ledger.cast({ entity: input.id, voter: addressVoter("flip-10"), direction: "down", guard: GUARD })
      assert.deepStrictEqual([heldFlip.status, heldFlip.counting], ["changed", "held"])
      const countedFlip = yield* ledger.cast({ entity: input.id, voter: addressVoter("flip-0"), direction: "down", guard: GUARD })
      assert.deepStrictEqual([countedFlip.status, countedFlip.counting], ["changed", "counted"])
      assert.deepStrictEqual(yield* countersOf(input.id), { up: 9, down: 1 })
    })
  )

  it.effect("the ledger tells how trust was formed: agents' counted votes apart from addresses'", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const registry = yield* AgentRegistry
      const input = freshInput({ seed: { up: 3, down: 1 } })
      yield* upsertOne(input)
      const agent = yield* registry.register({
        id: rng.uuid() as AgentId,
        name: "former",
        contact: null,
        keyHash: `hash-${rng.uuid()}`,
        keyHint: "pdk_form",
        registeredFrom: null
      })
      yield* ledger.cast({ entity: input.id, voter: agentVoter(agent.id), direction: "up" })
      yield* ledger.cast({ entity: input.id, voter: addressVoter("former-1"), direction: "down" })
      yield* ledger.cast({ entity: input.id, voter: addressVoter("former-2"), direction: "up" })
      assert.deepStrictEqual(yield* ledger.formation(input.id), {
        agents: { up: 1, down: 0 },
        addresses: { up: 1, down: 1 },
        // Each counted vote by its weight: a fresh agent's, then the addresses'.
        byWeight: [
          { weight: VOTE_WEIGHTS.agent, up: 1, down: 0 },
          { weight: VOTE_WEIGHTS.address, up: 1, down: 1 }
        ],
        held: 0,
        heldBy: { waiting: 0, anonymous: 0, reversal: 0, group: 0 },
        discounted: 0
      })
    })
  )

  it.effect("a vote's budgets are drawn on when it records or changes something, not when it is sent again unchanged", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput()
      yield* upsertOne(input)
      const budget: Limit = { key: `contract-budget-${rng.uuid()}`, max: 2, windowSeconds: 86_400 }
      const vote = (voter: string, direction: "up" | "down") =>
        ledger.castWithin([], { entity: input.id, voter: addressVoter(voter), direction, budgets: [budget] })
      const first = yield* vote("budget-a", "up")
      assert.strictEqual(first._tag, "Cast")
      // The same vote again (a retry): unchanged, and the budget is not drawn on.
      for (let i = 0; i < 3; i++) {
        const again = yield* vote("budget-a", "up")
        assert.deepStrictEqual(again._tag === "Cast" ? again.result.status : again._tag, "unchanged")
      }
      assert.strictEqual((yield* vote("budget-a", "down"))._tag, "Cast")
      // Two draws made: a third change, or another voter's vote on the same budget, is refused and records nothing.
      const refused = yield* vote("budget-b", "down")
      assert.strictEqual(refused._tag, "Limited")
      assert.strictEqual(refused._tag === "Limited" ? refused.decision.key : "", budget.key)
      assert.deepStrictEqual(yield* countersOf(input.id), { up: 0, down: 1 })
    })
  )
}
