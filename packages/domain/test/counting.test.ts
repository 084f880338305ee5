/**
 * The burst guard's rule (src/trust/voteCounting.ts), as every store applies it: who waits in a burst. The stores are
 * held to it by the store contract (packages/testkit, "how votes count", "integrity ledger").
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { DEFAULT_BURST_GUARD, holdsVote, isReversal, type VoteRates } from "../src/index.ts"

const Count = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100_000 }))
const Fast = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1_000 }))
const Direction = Schema.Literals(["up", "down"])
const guard = DEFAULT_BURST_GUARD
const rates = (fast: number, slow = 0): VoteRates => ({ fast, slow, at: 0 })

describe("the burst guard", () => {
  it.prop(
    "a voter with standing voting the way a product's votes lean, or on a product with no settled votes, never waits",
    [Count, Count, Fast, Direction],
    ([up, down, fast, direction]) => {
      const reversal = isReversal({ up, down }, direction, guard)
      if (reversal) expect(up + down).toBeGreaterThanOrEqual(guard.reversal.votes * 1_000)
      if ((direction === "up" && up >= down) || (direction === "down" && down >= up)) expect(reversal).toBe(false)
      expect(holdsVote(rates(fast), guard, { standing: true, reversal: false })).toBe(false)
    }
  )

  it.prop("a reversal waits sooner than a voter without standing, and only past its own floor", [Fast], ([fast]) => {
    const reversal = holdsVote(rates(fast), guard, { standing: true, reversal: true })
    const fresh = holdsVote(rates(fast), guard, { standing: false, reversal: false })
    if (fresh) expect(reversal).toBe(true)
    expect(reversal).toBe(fast + 1 > guard.reversal.floor)
  })

  it("thirty agents with standing turning on a product of 40 votes' worth up and 2 down within a minute: five count, the rest wait", () => {
    let weighted = { up: 40_000, down: 2_000 }
    let fast = 0
    const countings: Array<string> = []
    for (let n = 0; n < 30; n++) {
      const held = holdsVote(rates(fast), guard, { standing: true, reversal: isReversal(weighted, "down", guard) })
      countings.push(held ? "held" : "counted")
      if (!held) weighted = { ...weighted, down: weighted.down + 1_000 }
      fast++
    }
    expect(countings.filter((c) => c === "counted")).toHaveLength(5)
    expect(weighted).toEqual({ up: 40_000, down: 7_000 })
  })
})
