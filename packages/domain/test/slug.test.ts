import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { FALLBACK_SLUG, firstFreeSlug, Slug, SLUG_MAX_LENGTH, slugify } from "../src/index.ts"

describe("slugify", () => {
  it("strips diacritics and lowercases", () => {
    expect(slugify("Crème Brûlée Analytics")).toBe("creme-brulee-analytics")
    expect(slugify("Straße & Søn")).toBe("strasse-and-son")
  })

  it("turns punctuation runs into one hyphen and trims hyphens", () => {
    expect(slugify("  Hello, World!!  (v2.0) ")).toBe("hello-world-v2-0")
    expect(slugify("--a__b--")).toBe("a-b")
  })

  it("cuts at 80 characters without a trailing hyphen", () => {
    const slug = slugify(`${"a".repeat(79)} bcd`)
    expect(slug.length).toBeLessThanOrEqual(SLUG_MAX_LENGTH)
    expect(slug).toBe("a".repeat(79))
    expect(slugify("x".repeat(200))).toHaveLength(80)
  })

  it("falls back to a stable slug when the name has no ASCII letter or digit", () => {
    expect(slugify("東京")).toBe(FALLBACK_SLUG)
    expect(slugify("★ ★ ★")).toBe(FALLBACK_SLUG)
  })

  it("always yields a valid Slug", () => {
    for (const name of ["Crème", "東京", "a".repeat(300), "A-B", "ÆØÅ"]) {
      expect(Schema.is(Slug)(slugify(name))).toBe(true)
    }
  })
})

describe("firstFreeSlug", () => {
  it("suffixes -2, -3 on collision", () => {
    const taken = new Set(["acme", "acme-2"])
    expect(firstFreeSlug(slugify("Acme"), (s) => taken.has(s))).toBe("acme-3")
    expect(firstFreeSlug(slugify("Àcme"), () => false)).toBe("acme")
  })

  it("keeps suffixed slugs within 80 characters", () => {
    const base = slugify("z".repeat(80))
    const slug = firstFreeSlug(base, (s) => s === base)
    expect(slug).toBe(`${"z".repeat(78)}-2`)
    expect(slug.length).toBe(SLUG_MAX_LENGTH)
  })
})
