/**
 * The change feed: every change a store makes is told to its subscribers
 * before the call that made it returns (so a cache in the same process never
 * serves what was just changed), and a call that changes nothing tells nothing.
 */
import { assert } from "@effect/vitest"
import { Effect, Stream } from "effect"
import {
  AgentRegistry,
  addressVoter,
  agentVoter,
  CatalogStore,
  type ProductChange,
  ProductChanges,
  type ProductId,
  VoteLedger
} from "@productdir/domain"
import { registerAgent } from "./agents.contract.ts"
import { OperatorEdits } from "./OperatorEdits.ts"
import { freshInput, upsertOne } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

/** Subscribes for the rest of the scope; answers the ids told so far, each time it is read. */
const listen = Effect.gen(function* () {
  const heard: Array<ProductChange> = []
  yield* ProductChanges.use((changes) => changes.subscribe((change) => heard.push(change)))
  return (): ReadonlyArray<string> => heard.flatMap((c): ReadonlyArray<string> => (c._tag === "Products" ? c.ids : ["*"]))
})

/** Whether `id` was told (or everything was). */
const told = (heard: () => ReadonlyArray<string>, id: ProductId) => heard().includes(id) || heard().includes("*")

export const changesBehaviours = (it: ContractIt) => {
  it.effect("a vote is told before it returns; the same vote again is not", () =>
    Effect.gen(function* () {
      const input = freshInput()
      yield* upsertOne(input)
      const heard = yield* listen
      const ledger = yield* VoteLedger
      yield* ledger.cast({ entity: input.id, voter: addressVoter("teller"), direction: "up" })
      assert.isTrue(told(heard, input.id))
      const before = heard().length
      yield* ledger.cast({ entity: input.id, voter: addressVoter("teller"), direction: "up" })
      assert.strictEqual(heard().length, before)
      // The same direction with a reason reports a problem: the product's problems changed.
      yield* ledger.cast({ entity: input.id, voter: addressVoter("reporter"), direction: "down" })
      const afterDown = heard().length
      yield* ledger.cast({ entity: input.id, voter: addressVoter("reporter"), direction: "down", reason: "Slow search" })
      assert.isAbove(heard().length, afterDown)
    }).pipe(Effect.scoped)
  )

  it.effect("imports that change products, removals and repairs are told; an unchanged import is not", () =>
    Effect.gen(function* () {
      const store = yield* CatalogStore
      const input = freshInput()
      const heard = yield* listen
      yield* store.upsert([input])
      assert.isTrue(told(heard, input.id))
      const count = heard().length
      yield* store.upsert([input])
      assert.strictEqual(heard().length, count)
      yield* store.upsert([{ ...input, content: { ...input.content, ai_summary: `${input.content.ai_summary} Changed.` } }])
      assert.isAbove(heard().length, count)

      const removed = freshInput()
      yield* store.upsert([removed])
      const beforeRemove = heard().length
      yield* store.remove([removed.id])
      assert.isAbove(heard().length, beforeRemove)
      assert.strictEqual(heard().at(-1), removed.id)

      const drifted = freshInput()
      yield* upsertOne(drifted)
      yield* (yield* OperatorEdits).setCounters(drifted.id, { up: 40, down: 0 })
      const snapshots = (yield* Stream.runCollect((yield* VoteLedger).snapshots(1000))).flat().filter((s) => s.id === drifted.id)
      const beforeRepair = heard().length
      yield* (yield* VoteLedger).repair(snapshots)
      assert.deepStrictEqual(heard().slice(beforeRepair), [drifted.id])
    }).pipe(Effect.scoped)
  )

  it.effect("a revocation tells every product the agent voted on", () =>
    Effect.gen(function* () {
      const agent = yield* registerAgent("told")
      const inputs = [freshInput(), freshInput()]
      yield* CatalogStore.use((s) => s.upsert(inputs))
      const ledger = yield* VoteLedger
      for (const input of inputs) yield* ledger.cast({ entity: input.id, voter: agentVoter(agent.id), direction: "up" })
      const heard = yield* listen
      yield* AgentRegistry.use((r) => r.revoke(agent.id))
      for (const input of inputs) assert.isTrue(told(heard, input.id))
    }).pipe(Effect.scoped)
  )

  it.effect("a listener whose scope closed hears nothing more", () =>
    Effect.gen(function* () {
      const input = freshInput()
      yield* upsertOne(input)
      const heard = yield* Effect.scoped(listen)
      yield* (yield* VoteLedger).cast({ entity: input.id, voter: addressVoter("late"), direction: "down" })
      assert.deepStrictEqual(heard(), [])
    })
  )
}
