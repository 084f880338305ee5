import { describe, expect, it } from "@effect/vitest"
import { slugify } from "@productdir/domain"
import { generateRecord, generateRecords } from "../src/index.ts"
import { sampleCatalog, sampleRecords } from "../src/sample.ts"

describe("sample catalog", () => {
  const inputs = sampleCatalog()

  it("has at least 40 products over at least 8 categories, every one valid", () => {
    expect(inputs.length).toBeGreaterThanOrEqual(40)
    const categories = new Set(inputs.map((p) => p.content.category))
    expect(categories.size).toBeGreaterThanOrEqual(8)
    expect(new Set(inputs.map((p) => p.id)).size).toBe(inputs.length)
  })

  it("covers the awkward cases: empty not_recommended_for, diacritics, colliding slugs", () => {
    expect(inputs.filter((p) => p.content.not_recommended_for.length === 0).length).toBeGreaterThan(0)
    expect(inputs.some((p) => /[^\x00-\x7f]/.test(p.content.name))).toBe(true)
    const slugs = inputs.map((p) => slugify(p.content.name))
    expect(new Set(slugs).size).toBeLessThan(slugs.length)
    const prices = inputs.flatMap((p) => p.content.pricing.plans.map((plan) => plan.price))
    expect(prices).toEqual(expect.arrayContaining(["Free"]))
    expect(prices.some((price) => price.startsWith("€"))).toBe(true)
  })

  it("keeps its website free of tracking parameters", () => {
    expect(sampleRecords().every((r) => !r.trust_signals?.website.includes("utm_"))).toBe(true)
  })
})

describe("generator", () => {
  it("is deterministic per seed and differs across seeds", () => {
    expect(generateRecord(7, 3)).toEqual(generateRecord(7, 3))
    expect(generateRecord(7, 3).id).not.toBe(generateRecord(8, 3).id)
    const ids = [...generateRecords(1, 500)].map((r) => r.id)
    expect(new Set(ids).size).toBe(500)
  })

  it("makes records of about 2 KB", () => {
    const sizes = [...generateRecords(2, 200)].map((r) => JSON.stringify(r).length)
    const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length
    expect(mean).toBeGreaterThan(1200)
    expect(mean).toBeLessThan(3500)
  })
})
