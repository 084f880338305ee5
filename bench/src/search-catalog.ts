/**
 * The catalog of the search benchmark (bench/src/search.ts): N products whose words follow a Zipf
 * law over a made-up vocabulary of COMMON words (weight 1/(rank + 2.7): the first word is in most
 * products, a word of rank 300 in about 1.6 %, one of rank 3,000 in about 0.16 %), in 12
 * categories, each named by a unique made-up brand word and a common word. Deterministic: the same
 * N gives the same records, so the query sets are derived from the same functions, not stored.
 */
import type { ImportRecord } from "@productdir/domain"
import { ENGLISH_STOP_WORDS } from "@productdir/domain"
import { seeded } from "@productdir/fixtures/random"

export const COMMON = 30_000
export const CATEGORIES = [
  "Analytics",
  "Accounting",
  "Customer Support",
  "Developer Tools",
  "Design",
  "Security",
  "Project Management",
  "Marketing",
  "Data Infrastructure",
  "Communication",
  "Education",
  "Healthcare"
]

/** A few real words at the head, as in real catalogs ("platform" in most products). */
const HEAD = ["platform", "teams", "data", "workflow", "cloud", "tools", "manage", "simple", "reports", "secure", "automate"]
const ONSETS = ["b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "cl", "dr", "gr", "pl", "st", "tr"]
const VOWELS = ["a", "e", "i", "o", "u", "ai", "ou"]
const CODAS = ["", "", "n", "r", "l", "s", "m", "x", "nd", "rt"]

/** The common vocabulary, by rank: distinct made-up words of two or three syllables, no stop words. */
export const vocabulary: ReadonlyArray<string> = (() => {
  const r = seeded(20_261_125)
  const words = new Set<string>(HEAD)
  while (words.size < COMMON) {
    const syllables = r.int(2, 3)
    let word = ""
    for (let i = 0; i < syllables; i++) word += r.pick(ONSETS) + r.pick(VOWELS) + (i === syllables - 1 ? r.pick(CODAS) : "")
    if (!ENGLISH_STOP_WORDS.has(word)) words.add(word)
  }
  return [...words]
})()

/** Cumulative Zipf weights, for drawing a rank with one binary search. */
const cumulative = (() => {
  const c = new Float64Array(COMMON)
  let sum = 0
  for (let i = 0; i < COMMON; i++) {
    sum += 1 / (i + 2.7)
    c[i] = sum
  }
  return c
})()

export const zipfRank = (u: number): number => {
  const target = u * cumulative[COMMON - 1]!
  let lo = 0
  let hi = COMMON - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (cumulative[mid]! < target) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Product i's brand word: five syllables from its index's own generator (unique: checked by the caller's set). */
export const brandWord = (i: number, attempt = 0): string => {
  const r = seeded(0x5eed0000 + i * 7 + attempt)
  let word = ""
  for (let s = 0; s < 5; s++) word += r.pick(ONSETS) + r.pick(VOWELS)
  return word
}

const capital = (w: string) => w[0]!.toUpperCase() + w.slice(1)

/** Record i, with its brand word (drawn by the caller so that brands stay unique). */
export const searchRecord = (i: number, brand: string): ImportRecord => {
  const r = seeded(0xca7a1060 + i)
  const words = (n: number) => Array.from({ length: n }, () => vocabulary[zipfRank(r.next())]!).join(" ")
  const hex = (n: number) => Array.from({ length: n }, () => r.int(0, 15).toString(16)).join("")
  const id = `${hex(8)}-${hex(4)}-4${hex(3)}-${"89ab"[r.int(0, 3)]}${hex(3)}-${hex(12)}`
  const name = `${capital(brand)} ${capital(vocabulary[zipfRank(r.next())]!)}`
  const host = `https://${brand}.example`
  return {
    id: id as ImportRecord["id"] & string,
    name,
    category: CATEGORIES[i % CATEGORIES.length]!,
    trust: { trust_up: r.int(0, 300), trust_down: r.int(0, 60) },
    ai_summary: `${words(r.int(16, 24))}.`,
    ai_features: Array.from({ length: 3 }, () => `${words(r.int(7, 9))}.`),
    ai_optimization: {
      seeded_at: "2026-06-01T00:00:00",
      use_cases: [],
      seeded_url: host,
      ai_benefits: "",
      seeded_from: "catalog-seed",
      target_audience: "",
      not_recommended_for: "",
      competitive_position: ""
    },
    recommended_for: [],
    not_recommended_for: [],
    pricing: { model: "subscription", plans: [] },
    key_features: [],
    trust_signals: { website: host },
    problems: []
  }
}

/** Every product's brand word, unique (a repeat draws again). */
export const brandWords = (n: number): ReadonlyArray<string> => {
  const seen = new Set<string>(vocabulary)
  const brands: Array<string> = []
  for (let i = 0; i < n; i++) {
    let attempt = 0
    let brand = brandWord(i)
    while (seen.has(brand)) brand = brandWord(i, ++attempt)
    seen.add(brand)
    brands.push(brand)
  }
  return brands
}
