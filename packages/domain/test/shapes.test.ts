import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import {
  AgentCard,
  characterCount,
  deeperThan,
  duplicateKeys,
  MAX_REPEATS_REPORTED,
  AgentView,
  cheapestPlan,
  defaultUtm,
  normalizeReason,
  priceAmount,
  problemsOf,
  tidyReason,
  toAgentCard,
  toAgentView,
  VoteRequest,
  voteTransition
} from "../src/index.ts"
import { product } from "./fixture.ts"

describe("agent card and view", () => {
  it("the card links every read and the vote, and validates against its schema", () => {
    const card = toAgentCard(product)
    expect(Schema.decodeUnknownSync(AgentCard)(JSON.parse(JSON.stringify(card)))).toEqual(card)
    expect(card.pricing.cheapest_plan).toEqual({ name: "Solo", price: "$9/mo" })
    expect(card.links.vote).toMatchObject({ method: "POST", href: "/vote", body: { entity_id: product.id } })
    expect(card.links.problems.href).toBe("/entities/ledgerly-books/problems")
    expect(card.trust.summary).toBe("68/100 from 15 votes, 80% up (12.1 votes' worth by standing: some evidence)")
    expect(card.trust.evidence).toBe("some")
  })

  it("the view adds the decision fields and the top 3 problems", () => {
    const problems = problemsOf(product, [])
    const formation = {
      agents: { up: 3, down: 1 },
      addresses: { up: 2, down: 0 },
      byWeight: [
        { weight: 1_000, up: 1, down: 1 },
        { weight: 25, up: 2, down: 0 },
        { weight: 10, up: 2, down: 0 }
      ],
      held: 4,
      heldBy: { waiting: 3, anonymous: 1, reversal: 0, group: 0 },
      discounted: 7
    }
    const view = toAgentView(product, problems, defaultUtm, formation)
    expect(Schema.decodeUnknownSync(AgentView)(JSON.parse(JSON.stringify(view)))).toEqual(view)
    expect(view.problems.total).toBe(1)
    expect(view.target_audience).toBe("Agencies with 2-50 staff")
    expect(view.links.self.href).toBe("/entities/ledgerly-books?format=agent")
    // Each weight in votes, heaviest first, and the sum an agent can redo: seed 10/2 at a whole vote each, plus the
    // counted votes' weights, pulled toward the prior (10 votes at 0.5).
    const { byWeight: _, heldBy: __, ...counts } = formation
    expect(view.trust_formation).toEqual({
      seed: product.seed,
      ...counts,
      weights: [
        { weight: 1, up: 1, down: 1 },
        { weight: 0.025, up: 2, down: 0 },
        { weight: 0.01, up: 2, down: 0 }
      ],
      prior: { votes: 10, share: 0.5 },
      judged_share: (10 + 1 + 0.05 + 0.02 + 5) / (12 + 2 + 0.07 + 10),
      // Why the held are held, with the reasons in words, none listed that holds none.
      held_because: [
        { reason: "waiting", votes: 3, explanation: expect.stringContaining("the next integrity pass counts them") },
        { reason: "anonymous", votes: 1, explanation: expect.stringContaining("a flood of addresses") }
      ]
    })
  })

  it("reads prices", () => {
    expect(priceAmount("Free")).toBe(0)
    expect(priceAmount("€9/user/mo")).toBe(9)
    expect(priceAmount("$1,200/yr")).toBe(1200)
    expect(priceAmount("Contact sales")).toBeUndefined()
    expect(
      cheapestPlan([
        { name: "Ent", price: "Contact us", features: [] },
        { name: "Pro", price: "$5/mo", features: [] }
      ])?.name
    ).toBe("Pro")
    expect(cheapestPlan([])).toBeUndefined()
  })
})

describe("problems", () => {
  it("normalises reasons", () => {
    expect(normalizeReason("  No   SSO\ton Team ")).toBe("no sso on team")
  })

  it("counts reasons a reader cannot tell apart under one key", () => {
    const key = normalizeReason("Café export crashes")
    // "é" as one character, and as "e" and a combining accent; upper case; full-width letters and the "ﬁ"
    // ligature; a zero-width space, a soft hyphen and a no-break space typed into the words.
    for (const lookAlike of [
      "Cafe\u0301 export crashes",
      "CAFÉ EXPORT CRASHES",
      "Ｃａｆé export crashes",
      "Caf\u200Bé ex\u00ADport\u00A0crashes"
    ]) {
      expect(normalizeReason(lookAlike)).toBe(key)
    }
    expect(normalizeReason("ﬁle sync")).toBe(normalizeReason("file sync"))
    // Letters of other scripts that look like Latin ones: the Cyrillic О and ѕ, the Greek Ι.
    expect(normalizeReason("no SS\u041e on the team plan")).toBe(normalizeReason("no SSO on the team plan"))
    expect(normalizeReason("no \u0455so, no \u0399P allowlist")).toBe(normalizeReason("no sso, no IP allowlist"))
    // Different words stay different problems.
    expect(normalizeReason("Cafe export crashes")).not.toBe(key)
    // Shown as sent, composed: one form of "é" whichever way it was typed.
    expect(tidyReason("Cafe\u0301  export")).toBe("Café export")
  })
})

describe("vote", () => {
  const decode = Schema.decodeUnknownResult(VoteRequest)
  it("accepts the minimal body and rejects a reason on an up vote", () => {
    expect(decode({ entity_id: "x" })._tag).toBe("Success")
    expect(decode({ entity_id: "x", direction: "down", reason: "too slow" })._tag).toBe("Success")
    expect(decode({ entity_id: "x", reason: "too slow" })._tag).toBe("Failure")
    expect(decode({ entity_id: "x", direction: "sideways" })._tag).toBe("Failure")
    expect(decode({ entity_id: "x", voter_id: "has space" })._tag).toBe("Failure")
    expect(decode({ entity_id: "x", direction: "down", reason: "x".repeat(281) })._tag).toBe("Failure")
  })

  it("counts a text's length in characters, as its JSON Schema's maxLength does: an emoji is one", () => {
    expect(characterCount("a😀b")).toBe(3)
    expect(characterCount("é".normalize("NFD"))).toBe(2)
    const reason = (text: string) => decode({ entity_id: "x", direction: "down", reason: text })._tag
    // 280 characters of 560 UTF-16 units fit; 281 do not, whatever their units.
    expect(reason("😀".repeat(280))).toBe("Success")
    expect(reason("😀".repeat(281))).toBe("Failure")
    expect(reason(`${"😀".repeat(140)}${"x".repeat(140)}`)).toBe("Success")
    expect(reason("x".repeat(280))).toBe("Success")
  })

  it("moves counters by the transition rules", () => {
    expect(voteTransition(undefined, "up")).toEqual({ status: "recorded", delta: { up: 1, down: 0 } })
    expect(voteTransition("up", "up")).toEqual({ status: "unchanged", delta: { up: 0, down: 0 } })
    expect(voteTransition("up", "down")).toEqual({ status: "changed", delta: { up: -1, down: 1 } })
  })
})

describe("JSON bodies", () => {
  it("finds each name given twice in one object, compared as JSON reads names, at its path", () => {
    expect(duplicateKeys(`{"a":1,"b":{"a":2}}`)).toEqual([])
    expect(duplicateKeys(`{"a":1,"\\u0061":2}`)).toEqual([["a"]])
    expect(duplicateKeys(`{"x":{"b":1,"b":2},"y":[{"c":1},{"c":1,"c":2}]}`)).toEqual([
      ["x", "b"],
      ["y", 1, "c"]
    ])
    // Names inside strings are text, not names.
    expect(duplicateKeys(`{"a":"\\"a\\": 1, \\"a\\"","b":["a","a"]}`)).toEqual([])
    expect(duplicateKeys(`[1,{"k":[{"z":1,"z":1}]}]`)).toEqual([[1, "k", 0, "z"]])
    // A quote after an even run of backslashes ends the string; after an odd run it is text.
    expect(duplicateKeys(`{"a\\\\":1,"a\\\\":2}`)).toEqual([["a\\"]])
    expect(duplicateKeys(`{"a":"x\\\\","a":2,"b":"\\"a\\":","c":1}`)).toEqual([["a"]])
    // An object of many names (kept in a Set past the first sixteen): a repeat on either side of that line.
    const many = Array.from({ length: 20 }, (_, i) => `"n${i}":${i}`)
    expect(duplicateKeys(`{${[...many, '"n3":0', '"n18":0'].join(",")}}`)).toEqual([["n3"], ["n18"]])
    // Broken JSON is scanned to its end without throwing (the parser that follows says what is wrong).
    expect(duplicateKeys(`{"a":1,"a`)).toEqual([["a"]])
    expect(duplicateKeys(`{"a":"never closed`)).toEqual([])
    // Reports are bounded: a name repeated 1,500 times under 4,000 levels is named 20 times, then the scan stops.
    const deep = duplicateKeys(`${"[".repeat(4_000)}{${'"",'.repeat(1_500)}""}`)
    expect(deep).toHaveLength(MAX_REPEATS_REPORTED)
    expect(deep[0]).toHaveLength(4_001)
    expect(deeperThan(`{"a":[{"b":"[[[[["}]}`, 3)).toBe(false)
    expect(deeperThan(`{"a":[{"b":[1]}]}`, 3)).toBe(true)
    expect(deeperThan(`[1,[2],[3,[4]]]`, 3)).toBe(false)
  })
})
