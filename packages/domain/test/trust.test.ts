import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { toTrust, trustRatio, trustScore, WILSON_Z, wilsonLowerBound } from "../src/index.ts"

const Count = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000_000 }))

describe("trust", () => {
  it("is all zero without votes", () => {
    expect(toTrust({ up: 0, down: 0 })).toEqual({ trust_score: 0, trust_up: 0, trust_down: 0, trust_ratio: 0, evaluation_count: 0 })
  })

  it("one up vote is a ratio of 1 but a low score", () => {
    const t = toTrust({ up: 1, down: 0 })
    expect(t.trust_ratio).toBe(1)
    expect(t.evaluation_count).toBe(1)
    expect(t.trust_score).toBe(21) // Wilson lower bound of 1/1 is z²/(1+z²)... ≈ 0.2065
  })

  it("one down vote scores 0", () => {
    expect(toTrust({ up: 0, down: 1 })).toEqual({ trust_score: 0, trust_up: 0, trust_down: 1, trust_ratio: 0, evaluation_count: 1 })
  })

  it("ranks 90/100 above 9/10 although the ratio is the same", () => {
    expect(trustRatio({ up: 90, down: 10 })).toBe(trustRatio({ up: 9, down: 1 }))
    expect(trustScore({ up: 90, down: 10 })).toBeGreaterThan(trustScore({ up: 9, down: 1 }))
    expect(trustScore({ up: 90, down: 10 })).toBe(83)
    expect(trustScore({ up: 9, down: 1 })).toBe(60)
  })

  it("rounds the ratio to 4 decimals", () => {
    expect(trustRatio({ up: 1, down: 2 })).toBe(0.3333)
    expect(trustRatio({ up: 2, down: 1 })).toBe(0.6667)
  })

  it("stays finite for counts near 1e9", () => {
    const t = toTrust({ up: 999_999_999, down: 1_000_000_000 })
    expect(Number.isFinite(t.trust_ratio)).toBe(true)
    expect(t.trust_score).toBe(50)
    expect(t.evaluation_count).toBe(1_999_999_999)
    expect(toTrust({ up: 1_000_000_000, down: 0 }).trust_score).toBe(100)
  })

  it("uses z for 95 %", () => {
    expect(WILSON_Z).toBeCloseTo(1.96, 2)
  })

  it.prop("ratio in [0,1], score an integer in [0,100]", [Count, Count], ([up, down]) => {
    const t = toTrust({ up, down })
    return (
      t.trust_ratio >= 0 &&
      t.trust_ratio <= 1 &&
      Number.isInteger(t.trust_score) &&
      t.trust_score >= 0 &&
      t.trust_score <= 100 &&
      wilsonLowerBound({ up, down }) <= (up + down === 0 ? 0 : up / (up + down)) + 1e-12
    )
  })

  it.prop(
    "an added up vote never lowers the score",
    [Count, Count],
    ([up, down]) => trustScore({ up: up + 1, down }) >= trustScore({ up, down })
  )

  it.prop(
    "an added down vote never raises the score",
    [Count, Count],
    ([up, down]) => trustScore({ up, down: down + 1 }) <= trustScore({ up, down })
  )
})
