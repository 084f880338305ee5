/** Reconciliation: snapshots of counters against the ledger, and repairs that never lose a vote. */
import { assert } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { CatalogStore, type ProductId, SEED_WEIGHT, VOTE_WEIGHTS, VoteLedger, addressVoter } from "@productdir/domain"
import { OperatorEdits } from "./OperatorEdits.ts"
import { freshInput, upsertOne } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

export const reconciliationBehaviours = (it: ContractIt) => {
  // ---- reconciliation ----------------------------------------------------------
  it.effect("snapshots show seed, stored counters and the ledger's tally", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const input = freshInput({ seed: { up: 4, down: 1 } })
      yield* upsertOne(input)
      yield* ledger.cast({ entity: input.id, voter: addressVoter("i1"), direction: "up" })
      yield* ledger.cast({ entity: input.id, voter: addressVoter("i2"), direction: "down" })
      const batches = yield* Stream.runCollect(ledger.snapshots(50))
      assert.isTrue(batches.every((b) => b.length > 0 && b.length <= 50))
      const mine = batches.flat().find((s) => s.id === input.id)
      // The weighted evidence beside the counts: a seed count weighs a whole vote, an address's vote a hundredth.
      assert.deepStrictEqual(mine, {
        id: input.id,
        seed: { up: 4, down: 1 },
        stored: { up: 5, down: 2 },
        ledger: { up: 1, down: 1 },
        storedWeighted: { up: 4 * SEED_WEIGHT + VOTE_WEIGHTS.address, down: SEED_WEIGHT + VOTE_WEIGHTS.address },
        ledgerWeighted: { up: VOTE_WEIGHTS.address, down: VOTE_WEIGHTS.address }
      })
    })
  )

  it.effect("repair recounts drifted products from seed + ledger and leaves the rest", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const operatorEdits = yield* OperatorEdits
      const store = yield* CatalogStore
      const a = freshInput({ seed: { up: 2, down: 0 } })
      const b = freshInput()
      const c = freshInput()
      yield* store.upsert([a, b, c])
      yield* ledger.cast({ entity: a.id, voter: addressVoter("j1"), direction: "up" })
      yield* operatorEdits.setCounters(a.id, { up: 99, down: 7 })
      yield* operatorEdits.insertVote(b.id, "ghost", "down")
      const snapshotOf = (ids: ReadonlyArray<ProductId>) =>
        Effect.map(Stream.runCollect(ledger.snapshots(1000)), (batches) => batches.flat().filter((s) => ids.includes(s.id)))
      const repairs = yield* ledger.repair(yield* snapshotOf([a.id, b.id, c.id]))
      assert.deepStrictEqual(
        [...repairs].sort((x, y) => (x.id < y.id ? -1 : 1)),
        [
          { id: a.id, before: { up: 99, down: 7 }, after: { up: 3, down: 0 } },
          { id: b.id, before: { up: 0, down: 0 }, after: { up: 0, down: 1 } }
        ].sort((x, y) => (x.id < y.id ? -1 : 1))
      )
      assert.deepStrictEqual(yield* ledger.repair(yield* snapshotOf([a.id, b.id, c.id])), [])
      assert.deepStrictEqual((yield* store.find(a.id)).counters, { up: 3, down: 0 })
    })
  )

  it.effect(
    "votes cast while repairs run are never lost",
    () =>
      Effect.gen(function* () {
        const ledger = yield* VoteLedger
        const operatorEdits = yield* OperatorEdits
        const input = freshInput()
        yield* upsertOne(input)
        yield* operatorEdits.setCounters(input.id, { up: 50, down: 50 })
        yield* Effect.all(
          [
            Effect.forEach(
              Array.from({ length: 200 }, (_, i) => i),
              (i) => ledger.cast({ entity: input.id, voter: addressVoter(`k${i}`), direction: "up" }),
              { concurrency: 20 }
            ),
            // Repairs from snapshots that go stale while votes land: compare-and-set fails, the recount runs.
            Effect.forEach(
              Array.from({ length: 20 }),
              () =>
                Effect.flatMap(Stream.runCollect(ledger.snapshots(1000)), (batches) =>
                  ledger.repair(
                    batches
                      .flat()
                      .filter((s) => s.id === input.id)
                      .map((s) => ({ ...s, stored: { up: 50, down: 50 } }))
                  )
                ),
              { concurrency: 2 }
            )
          ],
          { concurrency: "unbounded" }
        )
        const final = (yield* Stream.runCollect(ledger.snapshots(1000))).flat().filter((s) => s.id === input.id)
        yield* ledger.repair(final)
        const p = yield* CatalogStore.use((s) => s.find(input.id))
        assert.deepStrictEqual(p.counters, { up: 200, down: 0 })
      }),
    120_000
  )
}
