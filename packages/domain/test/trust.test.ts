import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import {
  evidenceOf,
  judgedRatio,
  judgedScore,
  judgementWords,
  MILLI,
  PRIOR,
  SEED_WEIGHT,
  toTrust,
  toTrustSummary,
  trustScore,
  VOTE_WEIGHTS,
  voterClassOf,
  voteWeight,
  weightedOf,
  addressVoter,
  agentVoter,
  type AgentId,
  type Tally
} from "../src/index.ts"

/** Weighted evidence in thousandths of a vote, up to a billion votes' worth. */
const Milli = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000_000_000 }))
const Count = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 }))
const Weight = Schema.Literals([VOTE_WEIGHTS.standing, VOTE_WEIGHTS.agent, VOTE_WEIGHTS.address])

/** The evidence of `seed` counts alone: what an imported catalog says, each count a whole vote. */
const seeded = (up: number, down: number): Tally => weightedOf({ up, down }, { up: 0, down: 0 })

describe("the judgement (trust_score, trust_ratio)", () => {
  it("a product nobody voted on is at the prior, and says it has no votes yet", () => {
    const none = { up: 0, down: 0 }
    expect(toTrust(none, none)).toEqual({ trust_score: 50, trust_up: 0, trust_down: 0, trust_ratio: 0.5, evaluation_count: 0 })
    expect(toTrustSummary(none, none)).toMatchObject({ evidence: "none", summary: "no votes yet" })
  })

  it("ranks 90/100 above 9/10 although their shares are the same: thin evidence is pulled toward the prior", () => {
    expect(trustScore(seeded(90, 10))).toBe(86)
    expect(trustScore(seeded(9, 1))).toBe(70)
    expect(judgedRatio(seeded(9, 1))).toBe(0.7)
  })

  it("counts stay counts; the judgement weighs each vote by its voter's standing when it voted", () => {
    // 40 up votes of agents without standing and 40 of addresses, on a product nobody had voted on.
    const weighted = { up: 40 * VOTE_WEIGHTS.agent + 40 * VOTE_WEIGHTS.address, down: 0 }
    const trust = toTrust({ up: 80, down: 0 }, weighted)
    expect([trust.trust_up, trust.evaluation_count]).toEqual([80, 80])
    // 1.4 votes' worth against a prior of 10: (1.4 + 5) / (1.4 + 10).
    expect(trust.trust_score).toBe(56)
    expect(toTrustSummary({ up: 80, down: 0 }, weighted).summary).toBe(
      "56/100 from 80 votes, 100% up (1.40 votes' worth by standing: thin evidence)"
    )
  })

  it("voters weigh by standing: an agent with it a whole vote, one without a fortieth, an address a hundredth", () => {
    expect(voteWeight(voterClassOf(agentVoter("a" as AgentId), true))).toBe(MILLI)
    expect(voteWeight(voterClassOf(agentVoter("a" as AgentId), false))).toBe(25)
    expect(voteWeight(voterClassOf(addressVoter("h"), false))).toBe(10)
    expect(SEED_WEIGHT).toBe(MILLI)
  })

  it("says how much evidence it rests on", () => {
    expect(evidenceOf({ up: 0, down: 0 })).toBe("none")
    expect(evidenceOf({ up: 9_999, down: 0 })).toBe("thin")
    expect(evidenceOf(seeded(10, 0))).toBe("some")
    expect(evidenceOf(seeded(60, 40))).toBe("strong")
    expect(judgementWords(seeded(1, 0), { up: 1, down: 0 })).toBe(
      "55/100 from 1 vote, 100% up (1.00 votes' worth by standing: thin evidence)"
    )
  })

  it("stays finite and exact for counts near a billion", () => {
    const t = toTrust({ up: 999_999_999, down: 1_000_000_000 }, seeded(999_999_999, 1_000_000_000))
    expect(Number.isFinite(t.trust_ratio)).toBe(true)
    expect(t.trust_score).toBe(50)
    expect(toTrust({ up: 1_000_000_000, down: 0 }, seeded(1_000_000_000, 0)).trust_score).toBe(100)
  })

  it.prop("the ratio is in [0, 1] and the score an integer in [0, 100]", [Milli, Milli], ([up, down]) => {
    const t = toTrust({ up: 0, down: 0 }, { up, down })
    return t.trust_ratio >= 0 && t.trust_ratio <= 1 && Number.isInteger(t.trust_score) && t.trust_score >= 0 && t.trust_score <= 100
  })

  it.prop(
    "monotone in each vote: an up vote never lowers the score, a down vote never raises it",
    [Milli, Milli, Weight],
    ([up, down, w]) =>
      judgedScore({ up: up + w, down }) >= judgedScore({ up, down }) && judgedScore({ up, down: down + w }) <= judgedScore({ up, down })
  )

  it.prop(
    "one voter's influence is bounded: one vote moves the share by at most its weight over the evidence and the prior",
    [Milli, Milli, Weight],
    ([up, down, w]) => {
      const share = (t: Tally) => (t.up + PRIOR.votes * PRIOR.share * MILLI) / (t.up + t.down + PRIOR.votes * MILLI)
      const bound = w / (up + down + w + PRIOR.votes * MILLI)
      return Math.abs(share({ up: up + w, down }) - share({ up, down })) <= bound + 1e-12
    }
  )

  it.prop(
    "one network's influence is bounded: its per-product budget of anonymous votes (8 a day) moves no score more than a point",
    [Count, Count, Schema.Literals(["up", "down"])],
    ([up, down, direction]) => {
      const before = seeded(up, down)
      const flood = 8 * VOTE_WEIGHTS.address
      const after = direction === "up" ? { ...before, up: before.up + flood } : { ...before, down: before.down + flood }
      return Math.abs(judgedScore(after) - judgedScore(before)) <= 1
    }
  )

  it.prop(
    "fresh identities cannot buy much: k agents without standing move a product nobody voted on at most k/40 votes' worth",
    [Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 }))],
    ([k]) => {
      const moved = judgedScore({ up: k * VOTE_WEIGHTS.agent, down: 0 }) - 50
      const worth = (k * VOTE_WEIGHTS.agent) / MILLI
      return moved <= Math.ceil((100 * worth) / (2 * (worth + PRIOR.votes))) && (k > 10 || moved <= 1)
    }
  )
})
