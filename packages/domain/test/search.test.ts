import { describe, expect, it } from "@effect/vitest"
import { defaultSort, foldAccents, isTypoOf, queryWords, searchFieldsOf, SEARCH_TEXT_LIMIT } from "../src/index.ts"
import { content } from "./fixture.ts"

describe("search words", () => {
  it("folds accents, including letters NFKD keeps whole", () => {
    expect(foldAccents("Ñandú Økonomi Zürich Straße Łódź Æther")).toBe("Nandu Okonomi Zurich Strasse Lodz AEther")
  })

  it("a query's words: lower case, folded, distinct, no stop words, at most eight", () => {
    expect(queryWords("Invoicing for the FREELANCERS, invoicing!")).toEqual(["invoicing", "freelancers"])
    expect(queryWords("the of and")).toEqual([])
    // Words that frame a request are left out while others say what is wanted, and searched when they are all there is.
    expect(queryWords("find an invoicing tool")).toEqual(["invoicing"])
    expect(queryWords("I need software for payroll")).toEqual(["payroll"])
    expect(queryWords("developer tools")).toEqual(["developer"])
    expect(queryWords("tools")).toEqual(["tools"])
    expect(queryWords("find software")).toEqual(["find", "software"])
    expect(queryWords("a b c d e f g h i j k l")).toHaveLength(8)
  })

  it("one typo: a letter wrong, missing, extra, or two swapped; two for long words; never for short ones", () => {
    expect(isTypoOf("invoise", "invoice")).toBe(true)
    expect(isTypoOf("invoce", "invoice")).toBe(true)
    expect(isTypoOf("invoicce", "invoice")).toBe(true)
    expect(isTypoOf("tallyhuose", "tallyhouse")).toBe(true)
    expect(isTypoOf("talyhuose", "tallyhouse")).toBe(true)
    expect(isTypoOf("inviose", "invoice")).toBe(false)
    expect(isTypoOf("cat", "car")).toBe(false)
    expect(isTypoOf("invoice", "invoice")).toBe(false)
    // A word past 24 letters is searched as written: no typo lookup grows with a hostile word's length.
    const long = "interoperabilityplatforms"
    expect(long.length).toBe(25)
    expect(isTypoOf(long, "interoperabilityplatform")).toBe(false)
    expect(isTypoOf(long.slice(0, 24), "interoperabilityplatfor")).toBe(true)
  })

  it("relevance is the default sort only when the query has words", () => {
    expect(defaultSort("okonomi")).toBe("relevance")
    expect(defaultSort("the")).toBe("trust")
    expect(defaultSort(undefined)).toBe("trust")
  })

  it("the searched text of a hostile record is bounded", () => {
    const huge = { ...content, key_features: Array.from({ length: 200 }, () => "x".repeat(2_000)) }
    expect(searchFieldsOf(huge).body.length).toBe(SEARCH_TEXT_LIMIT)
  })
})
