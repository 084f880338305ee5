import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { addressVoter, CatalogStore, fromImportRecord, ledgerKey, type ProductId, VoteLedger } from "@productdir/domain"
import { generateRecord } from "@productdir/fixtures"
import { layerWithState, MemoryState } from "@productdir/store-memory/testing"
import { reconcile } from "../src/index.ts"

const content = fromImportRecord(generateRecord(1, 1), "00000000-0000-4000-8000-000000000001" as ProductId).input.content

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}` as ProductId

describe("reconcile on the in-memory store", () => {
  it.effect("check reports drift without touching it; repair fixes exactly the drifted products", () =>
    Effect.gen(function* () {
      const catalog = yield* CatalogStore
      const ledger = yield* VoteLedger
      const state = yield* MemoryState
      yield* catalog.upsert([1, 2, 3, 4, 5].map((n) => ({ id: id(n), content: { ...content, name: `P${n}` }, seed: { up: n, down: 1 } })))
      for (const n of [1, 2, 3]) yield* ledger.cast({ entity: id(n), voter: addressVoter("v"), direction: "up" })
      state.products.set(id(2), { ...state.products.get(id(2))!, counters: { up: 50, down: 50 } })
      state.votes.get(id(3))!.delete(ledgerKey(addressVoter("v")))

      const checked = yield* reconcile({ repair: false, batchSize: 2 })
      assert.deepStrictEqual([checked.checked, checked.drifted, checked.repaired, checked.votesScanned], [5, 2, 0, 2])
      assert.deepStrictEqual(
        checked.drifts.map((d) => [d.id, d.expected]),
        [
          [id(2), { up: 3, down: 1 }],
          [id(3), { up: 3, down: 1 }]
        ]
      )
      assert.deepStrictEqual(state.products.get(id(2))!.counters, { up: 50, down: 50 })

      const repaired = yield* reconcile({ repair: true, batchSize: 2 })
      assert.deepStrictEqual([repaired.drifted, repaired.repaired], [2, 2])
      assert.deepStrictEqual((yield* reconcile({ repair: false, batchSize: 10 })).drifted, 0)
      assert.deepStrictEqual(state.products.get(id(3))!.counters, { up: 3, down: 1 })
    }).pipe(Effect.provide(layerWithState))
  )
})
