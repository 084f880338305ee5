/** Reading an agent's request and answering it from candidates (docs/search.md), pure: no store. */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import {
  answerRequest,
  type Candidate,
  describeProduct,
  DESCRIPTION_FIELD_LIMIT,
  makeVocabulary,
  meets,
  readRequest,
  VocabularyFile
} from "../src/index.ts"
import { Schema } from "effect"
import { ProductContent, type ProductId, type Product, type Slug } from "../src/index.ts"

/** The sample catalog's products, read from the fixtures' file (the fixtures package stands on this one). */
const sampleProducts = (): Array<Product> =>
  readFileSync(fileURLToPath(new URL("../../fixtures/data/sample-catalog.ndjson", import.meta.url)), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const { id, trust, ...rest } = JSON.parse(line) as {
        id: string
        trust: { trust_up: number; trust_down: number }
        trust_signals: { website: string }
      }
      const content = Schema.decodeUnknownSync(ProductContent)(
        { ...rest, website: rest.trust_signals.website },
        { onExcessProperty: "ignore" }
      )
      const tally = { up: trust.trust_up, down: trust.trust_down }
      return {
        id: id as ProductId,
        slug: id as Slug,
        content,
        seed: tally,
        counters: tally,
        weighted: { up: tally.up * 1000, down: tally.down * 1000 },
        version: 1,
        updatedAt: new Date(0),
        removedAt: null
      }
    })

const shipped = Schema.decodeUnknownSync(VocabularyFile)(
  JSON.parse(readFileSync(fileURLToPath(new URL("../data/search-vocabulary.json", import.meta.url)), "utf8"))
)
const vocabulary = makeVocabulary([shipped], new Set(["slack", "chat", "manager", "password"]))

const candidates = (): Array<Candidate> =>
  sampleProducts().map((product) => ({ product, description: describeProduct(product.id, product.content) }))

describe("reading a request", () => {
  it("leaves phrasing out, keeps what is asked, and finds the head of a noun phrase", () => {
    const sentence = readRequest("I need a tool that sends invoices", vocabulary)
    expect(sentence.concepts.map((c) => c.label)).toEqual(["tool", "sends", "invoices"])
    expect(sentence.ignored).toEqual(expect.arrayContaining(["need"]))
    expect(sentence.head).toEqual([])
    const phrase = readRequest("VPN for remote employees", vocabulary)
    expect(phrase.head).toEqual(["vpn"])
    // "help" alone is phrasing ("help me find…"); as the start of a term it is the term's, and the term the head.
    expect(readRequest("help desk with SSO for the support team", vocabulary).head).toEqual(["help desk"])
    expect(readRequest("help me find a help desk", vocabulary).head).toEqual([])
  })

  it("reads abbreviations and synonyms from the vocabulary, as one concept", () => {
    const pto = readRequest("PTO tracker", vocabulary)
    const concept = pto.concepts.find((c) => c.label === "pto")!
    expect(concept.forms).toEqual(expect.arrayContaining([["time", "off"], ["vacat"]]))
    expect(readRequest("point of sale for a café", vocabulary).concepts[0]!.label).toBe("point of sale")
  })

  it("reads 'alternative to X' in its forms, X named apart from the rest", () => {
    for (const [q, name] of [
      ["alternative to Trello for a design team", "trello"],
      ["Figma alternative that works in the browser", "figma"],
      ["something like Zendesk but cheaper", "zendesk"],
      ["Adobe Illustrator alternative without a subscription", "adobe illustrator"],
      ["switching from Jira to something simpler", "jira"]
    ] as const) {
      expect(readRequest(q, vocabulary).alternativeTo, q).toBe(name)
    }
    // "like" that compares nothing.
    expect(readRequest("I would like a tool for invoices", vocabulary).alternativeTo).toBeUndefined()
  })

  it("reads constraints, and leaves their words out of what is searched", () => {
    const priced = readRequest("password manager under $5 per user", vocabulary)
    expect(priced.constraints).toEqual([{ kind: "max_price", amount: 5, currency: "USD" }])
    expect(priced.concepts.map((c) => c.label)).toEqual(["password manager"])
    expect(readRequest("vector editor without a subscription", vocabulary).constraints).toEqual([{ kind: "no_subscription" }])
    expect(readRequest("newsletters on a free plan", vocabulary).constraints).toEqual([{ kind: "free_plan" }])
    expect(readRequest("cheap helpdesk", vocabulary).constraints).toEqual([{ kind: "low_price" }])
    // Part of a word is not a constraint: a cookie-free tool asks for no free plan.
    expect(readRequest("cookie-free analytics", vocabulary).constraints).toEqual([])
  })
})

describe("pricing against a constraint", () => {
  const [product] = sampleProducts()
  const d = describeProduct(product!.id, product!.content)
  it("reads a free plan, a lowest price and whether a price recurs", () => {
    expect(meets({ kind: "free_plan" }, { ...d, prices: ["Free", "$49/mo"], pricingModel: "freemium" })).toBe(true)
    expect(meets({ kind: "free_plan" }, { ...d, prices: ["€9/mo"], pricingModel: "subscription" })).toBe(false)
    expect(meets({ kind: "max_price", amount: 5, currency: "USD" }, { ...d, prices: ["$4/user/mo", "$8/user/mo"] })).toBe(true)
    expect(meets({ kind: "max_price", amount: 5, currency: "USD" }, { ...d, prices: ["$12/mo", "Contact sales"] })).toBe(false)
    expect(meets({ kind: "no_subscription" }, { ...d, prices: ["$99 one-time"], pricingModel: "one-time" })).toBe(true)
    expect(meets({ kind: "no_subscription" }, { ...d, prices: ["$12/mo"], pricingModel: "subscription" })).toBe(false)
  })
})

describe("answering a request from its candidates", () => {
  it("ranks what answers first, the same whatever order the candidates came in", () => {
    const all = candidates()
    const reading = readRequest("password manager for teams", vocabulary)
    const forward = answerRequest(reading, all, vocabulary, undefined)
    const backward = answerRequest(reading, [...all].reverse(), vocabulary, undefined)
    expect(forward.items[0]!.product.content.name).toBe("Keystone Vault")
    expect(forward.items.map((i) => i.product.id)).toEqual(backward.items.map((i) => i.product.id))
    expect(forward.reading.strong).toBe(true)
  })

  it("says nothing matches, naming what nothing has, and returns no result", () => {
    const partly = answerRequest(readRequest("3D printing slicer", vocabulary), candidates(), vocabulary, undefined)
    expect(partly.reading.strong).toBe(false)
    expect(partly.reading.unmatched).toEqual(expect.arrayContaining(["slicer"]))
    for (const item of partly.items) expect(item.match.quality).not.toBe("strong")
    const answer = answerRequest(readRequest("VPN", vocabulary), candidates(), vocabulary, undefined)
    expect(answer.items).toEqual([])
    expect(answer.reading.strong).toBe(false)
    expect(answer.reading.unmatched).toEqual(["vpn"])
    expect(answer.reading.answer).toBe("Nothing in the catalog matches this request: nothing has vpn.")
  })

  it("counts a concept its record says it is not for against it", () => {
    const all = candidates()
    const product = sampleProducts().find((p) => p.content.not_recommended_for.length > 0)!
    const against = product.content.not_recommended_for[0]!
    const answer = answerRequest(readRequest(against, vocabulary), all, vocabulary, undefined)
    const found = answer.items.find((i) => i.product.id === product.id)
    if (found !== undefined) expect(found.match.not_for.length).toBeGreaterThan(0)
    expect(found?.match.quality ?? "gone").not.toBe("strong")
  })

  it("counts a not-for against the head it names, not against a word of the request's context", () => {
    const all = candidates()
    // Harbor Desk is "not for retail e-commerce support at holiday-peak volume": still a help desk for a support team.
    const desk = answerRequest(
      readRequest("help desk with SSO for the support team of a B2B SaaS company", vocabulary),
      all,
      vocabulary,
      undefined
    )
    expect(desk.items[0]!.product.content.name).toBe("Harbor Desk")
    expect(desk.items[0]!.match.not_for).toEqual([])
    expect(desk.reading.strong).toBe(true)
    // A strong answer keeps no product with none of the head: a password manager with SSO is no help desk.
    expect(desk.items.map((i) => i.product.content.name)).not.toContain("Keystone Vault")
    // Zürich Ledger is not for "simple single-company bookkeeping": the head of this request.
    const books = answerRequest(readRequest("bookkeeping app for a small business", vocabulary), all, vocabulary, undefined)
    const ledger = books.items.find((i) => i.product.content.name === "Zürich Ledger")
    expect(ledger?.match.not_for ?? ["bookkeeping"]).toEqual(["bookkeeping"])
    expect(books.items[0]!.product.content.name).not.toBe("Zürich Ledger")
  })

  it("corrects a word that is no word, says so, and never corrects a known word", () => {
    const typo = answerRequest(readRequest("pasword manager", vocabulary), candidates(), vocabulary, undefined)
    expect(typo.reading.corrections).toEqual([{ word: "pasword", read_as: "password" }])
    expect(typo.items[0]!.product.content.name).toBe("Keystone Vault")
    const known = answerRequest(readRequest("slack", vocabulary), candidates(), vocabulary, undefined)
    expect(known.reading.corrections).toEqual([])
  })

  it("an alternative to a catalog product: its kind, without it", () => {
    const all = candidates()
    const pathwise = all.find((c) => c.product.content.name === "Pathwise Tasks")!
    const answer = answerRequest(readRequest("alternative to Pathwise Tasks", vocabulary), all, vocabulary, pathwise.description)
    expect(answer.items.map((i) => i.product.content.name)).not.toContain("Pathwise Tasks")
    expect(answer.items.every((i) => i.product.content.category === "Project Management")).toBe(true)
    expect(answer.reading.alternative_to).toMatchObject({ in_catalog: true })
  })
})

describe("a product's description", () => {
  it("reads each field bounded, whatever the record's size", () => {
    const [product] = sampleProducts()
    const huge = {
      ...product!.content,
      ai_summary: "é".repeat(300_000),
      key_features: Array.from({ length: 200 }, () => "x".repeat(2_000))
    }
    const d = describeProduct(product!.id, huge)
    expect([...d.summary].length).toBe(DESCRIPTION_FIELD_LIMIT)
    expect([...d.features].length).toBe(DESCRIPTION_FIELD_LIMIT)
  })
})
