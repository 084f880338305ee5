/** Problems: down votes with a reason, normalised and counted once per voter. */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { CatalogStore, ProblemStore, problemsOf, VoteLedger, addressVoter } from "@productdir/domain"
import { freshInput, upsertOne } from "./inputs.ts"
import type { ContractIt } from "./suite.ts"

export const problemsBehaviours = (it: ContractIt) => {
  // ---- problems -------------------------------------------------------------
  it.effect("down votes with a reason report a problem, normalised and counted per voter", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const problems = yield* ProblemStore
      const base = freshInput()
      const input = { ...base, content: { ...base.content, not_recommended_for: ["Air-gapped installs"], problems: ["Slow exports"] } }
      yield* upsertOne(input)
      yield* ledger.cast({ entity: input.id, voter: addressVoter("g1"), direction: "down", reason: "No SSO on the Team plan" })
      yield* ledger.cast({ entity: input.id, voter: addressVoter("g2"), direction: "down", reason: "  no sso ON the   team plan " })
      yield* ledger.cast({ entity: input.id, voter: addressVoter("g2"), direction: "down", reason: "no sso on the team plan" })
      yield* ledger.cast({ entity: input.id, voter: addressVoter("g3"), direction: "down", reason: "Slow exports" })
      yield* ledger.cast({ entity: input.id, voter: addressVoter("g4"), direction: "down" })
      const reported = yield* problems.reported(input.id)
      const byKey = Object.fromEntries(reported.map((r) => [r.key, r]))
      assert.strictEqual(reported.length, 2)
      assert.strictEqual(byKey["no sso on the team plan"]!.reports, 2)
      assert.strictEqual(byKey["no sso on the team plan"]!.summary, "No SSO on the Team plan")
      assert.strictEqual(byKey["slow exports"]!.reports, 1)
      const product = yield* CatalogStore.use((s) => s.find(input.id))
      const list = problemsOf(product, reported)
      // "Slow exports" is also a catalog problem: the community report counts toward it.
      assert.deepStrictEqual(
        list.map((p) => [p.summary, p.kind, p.reports]),
        [
          ["No SSO on the Team plan", "reported", 2],
          ["Slow exports", "limitation", 1],
          ["Air-gapped installs", "limitation", 0]
        ]
      )
    })
  )

  it.effect(
    "reasons a reader cannot tell apart are one problem: composed or not, full-width, invisible characters, look-alike letters",
    () =>
      Effect.gen(function* () {
        const ledger = yield* VoteLedger
        const input = freshInput()
        yield* upsertOne(input)
        const typings = [
          "Caf\u00e9 export crashes",
          "Cafe\u0301 export crashes",
          "CAF\u00c9 EXPORT CRASHES",
          "Caf\u200b\u00e9 ex\u00adport crashes",
          "\uff23af\u00e9 export crashes",
          // Cyrillic "е" (U+0435) and "С" (U+0421), Greek "Ο" (U+039F) in place of the Latin letters they look like.
          "\u0421af\u00e9 \u0435xp\u039frt crashes"
        ]
        for (const [i, reason] of typings.entries()) {
          yield* ledger.cast({ entity: input.id, voter: addressVoter(`look-${i}`), direction: "down", reason })
        }
        const reported = yield* ProblemStore.use((p) => p.reported(input.id))
        assert.deepStrictEqual(
          reported.map((r) => [r.summary, r.reports]),
          [["Caf\u00e9 export crashes", typings.length]]
        )
      })
  )

  it.effect("a vote carries one reason: a voter's new reason replaces its report, so one voter cannot fill the list", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const problems = yield* ProblemStore
      const input = freshInput()
      yield* upsertOne(input)
      yield* ledger.cast({ entity: input.id, voter: addressVoter("k2"), direction: "down", reason: "Spam problem 1" })
      // The same vote sent again with new reasons: unchanged as a vote, and still one report.
      for (let n = 1; n <= 12; n++) {
        const cast = yield* ledger.cast({ entity: input.id, voter: addressVoter("k1"), direction: "down", reason: `Spam problem ${n}` })
        assert.strictEqual(cast.status, n === 1 ? "recorded" : "unchanged")
      }
      yield* ledger.cast({ entity: input.id, voter: addressVoter("k1"), direction: "down" })
      const reported = yield* problems.reported(input.id)
      assert.deepStrictEqual(reported.map((r) => [r.key, r.reports]).sort(), [
        ["spam problem 1", 1],
        ["spam problem 12", 1]
      ])
    })
  )

  it.effect("switching to up withdraws the voter's reports", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const problems = yield* ProblemStore
      const input = freshInput()
      yield* upsertOne(input)
      yield* ledger.cast({ entity: input.id, voter: addressVoter("h1"), direction: "down", reason: "Buggy sync" })
      yield* ledger.cast({ entity: input.id, voter: addressVoter("h2"), direction: "down", reason: "Buggy sync" })
      yield* ledger.cast({ entity: input.id, voter: addressVoter("h1"), direction: "up" })
      const reported = yield* problems.reported(input.id)
      assert.deepStrictEqual(
        reported.map((r) => [r.key, r.reports]),
        [["buggy sync", 1]]
      )
    })
  )
}
