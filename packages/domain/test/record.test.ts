import { describe, expect, it } from "@effect/vitest"
import { Result, Schema, SchemaIssue } from "effect"
import { defaultUtm, isOffCalendar, ProductRecord, toProductRecord, withoutTracking, withTracking } from "../src/index.ts"
import { product } from "./fixture.ts"

const SPEC_FIELDS = [
  "tip",
  "schema_version",
  "id",
  "name",
  "category",
  "trust",
  "ai_summary",
  "ai_features",
  "ai_optimization",
  "recommended_for",
  "not_recommended_for",
  "pricing",
  "key_features",
  "trust_signals",
  "version",
  "updated_at",
  "discovery_endpoint",
  "agent_card_endpoint",
  "vote_endpoint"
]

const issuesOf = (u: unknown) => {
  const result = Schema.decodeUnknownResult(ProductRecord)(u, { errors: "all", onExcessProperty: "error" })
  if (Result.isSuccess(result)) return []
  return SchemaIssue.makeFormatterStandardSchemaV1()(result.failure.issue).issues.map((i) => ({
    path: (i.path ?? []).map((p) => (typeof p === "object" ? p.key : p)),
    message: i.message
  }))
}

describe("ProductRecord", () => {
  const record = toProductRecord(product, defaultUtm)
  const wire = Schema.encodeSync(ProductRecord)(record)

  it("has exactly the spec's fields in the spec's order", () => {
    expect(Object.keys(wire)).toEqual(SPEC_FIELDS)
    expect(Object.keys(wire.trust)).toEqual(["trust_score", "trust_up", "trust_down", "trust_ratio", "evaluation_count"])
    expect(Object.keys(wire.ai_optimization)).toEqual([
      "seeded_at",
      "use_cases",
      "seeded_url",
      "ai_benefits",
      "seeded_from",
      "target_audience",
      "not_recommended_for",
      "competitive_position"
    ])
    expect(Object.keys(wire.trust_signals)).toEqual(["website"])
  })

  it("derives endpoints, tip, versioning and the tracking URL", () => {
    expect(wire.discovery_endpoint).toBe(`/products/${product.id}`)
    expect(wire.agent_card_endpoint).toBe(`/products/${product.id}/agent-card`)
    expect(wire.vote_endpoint).toBe(`POST /vote with entity_id: ${product.id}`)
    expect(wire.tip).toContain("/entities/ledgerly-books?format=agent")
    expect(wire.tip).toContain("/entities/ledgerly-books/problems")
    expect(wire.schema_version).toBe("1.0")
    expect(wire.updated_at).toBe("2026-11-01T12:00:00+00:00")
    expect(wire.trust_signals.website).toBe(
      "https://ledgerly.example/?ref=dir&utm_source=productdir&utm_medium=agent&utm_campaign=directory"
    )
    // The counts as counted; the score and the ratio are the judgement of the weighted evidence (10.05 up, 2.01 down).
    expect(wire.trust).toEqual({ trust_score: 68, trust_up: 12, trust_down: 3, trust_ratio: 0.6822, evaluation_count: 15 })
  })

  it("round-trips through JSON", () => {
    expect(Schema.decodeUnknownSync(ProductRecord)(JSON.parse(JSON.stringify(wire)))).toEqual(record)
  })

  it("rejects a missing field and wrong types with their field paths", () => {
    const { name: _name, ...noName } = wire
    expect(issuesOf(noName)).toEqual([{ path: ["name"], message: "Missing key" }])
    const bad = {
      ...wire,
      trust: { ...wire.trust, trust_up: -1 },
      pricing: { ...wire.pricing, plans: [{ name: "x", price: 5, features: [] }] },
      ai_optimization: { ...wire.ai_optimization, seeded_at: "2026-01-15T09:30:00Z" },
      extra: true
    }
    const paths = issuesOf(bad).map((i) => i.path.join("."))
    expect(paths).toEqual(expect.arrayContaining(["trust.trust_up", "pricing.plans.0.price", "ai_optimization.seeded_at", "extra"]))
  })
})

describe("timestamps on the calendar", () => {
  const wire = Schema.encodeSync(ProductRecord)(toProductRecord(product, defaultUtm))
  it("refuses a date or time that does not exist, naming the field, and keeps the ones that do", () => {
    const offCalendar = (wrong: ReadonlyArray<{ path: ReadonlyArray<unknown>; message: string }>) =>
      wrong.map((i) => [i.path.join("."), i.message.includes("calendar")])
    for (const updated_at of ["2026-02-30T10:00:00+00:00", "2025-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-22T10:60:00+00:00"]) {
      expect(offCalendar(issuesOf({ ...wire, updated_at })), updated_at).toEqual([["updated_at", true]])
    }
    for (const seeded_at of ["2026-02-30T09:30:00", "2026-01-15T24:00:00", "2026-13-01T09:30:00", "2026-06-00T09:30:00"]) {
      const bad = { ...wire, ai_optimization: { ...wire.ai_optimization, seeded_at } }
      expect(offCalendar(issuesOf(bad)), seeded_at).toEqual([["ai_optimization.seeded_at", true]])
    }
    for (const real of ["2024-02-29T23:59:59+14:00", "2000-02-29T00:00:00Z", "2026-12-31T23:59:59.999-08:00"]) {
      expect(issuesOf({ ...wire, updated_at: real }), real).toEqual([])
    }
  })

  it("judges only what is shaped as a timestamp", () => {
    expect(isOffCalendar("2026-02-30")).toBe(true)
    expect(isOffCalendar("2026-02-28T23:59:59+25:00")).toBe(true)
    expect(isOffCalendar("2028-02-29")).toBe(false)
    expect(isOffCalendar("1900-02-29")).toBe(true)
    expect(isOffCalendar("yesterday")).toBe(false)
  })
})

describe("tracking URL", () => {
  it("replaces existing utm values and keeps other query and fragment", () => {
    const url = withTracking("https://x.example/p?utm_source=old&a=1#top", { source: "s", medium: "m", campaign: "c d" })
    expect(url).toBe("https://x.example/p?a=1&utm_source=s&utm_medium=m&utm_campaign=c%20d#top")
    expect(withoutTracking(url)).toBe("https://x.example/p?a=1#top")
    expect(withoutTracking("https://x.example")).toBe("https://x.example")
  })
})
