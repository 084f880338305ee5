/**
 * How well one product answers a request (docs/search.md, "How a result is judged"): each concept of the
 * request is looked for in each field that describes the product, and counts by the weightiest field that
 * has it (its name most, what it competes with least); a concept its record says it is not for counts
 * against it; each constraint is met or not. answer.ts weighs the concepts and ranks the products.
 */
import { isTypoOf } from "../record/search.ts"
import { searchTokens } from "../record/search.ts"
import type { ProductDescription } from "./ProductDescription.ts"
import { wordStem } from "./Vocabulary.ts"

/** The fields a concept is looked for in, and what a match in each is worth. */
export const FIELD_WEIGHTS = {
  name: 1.0,
  category: 0.9,
  summary: 0.75,
  features: 0.65,
  uses: 0.65,
  audience: 0.5,
  benefits: 0.4,
  position: 0.35
} as const
export type Field = keyof typeof FIELD_WEIGHTS
const FIELDS = Object.keys(FIELD_WEIGHTS) as ReadonlyArray<Field>
/** Fields that say what the product does (a match only in its audience or its competitors is not enough to be strong). */
export const DESCRIPTIVE: ReadonlySet<Field> = new Set(["name", "category", "summary", "features", "uses"])

/** What a match by a synonym or an expansion is worth beside one by the request's own words. */
export const SYNONYM_SHARE = 0.85

const ALL_FIELDS = [...FIELDS, "against"] as const
const BIT = Object.fromEntries(ALL_FIELDS.map((f, i) => [f, 1 << i])) as Readonly<Record<Field | "against", number>>

/**
 * A product's description as the assessment reads it: for each stem, the fields that have it (one bit a field), and
 * each field's stems in order, joined by spaces, for terms of several words. Few objects a product: an answer makes
 * one for each of its candidates while others wait on the database, and more objects there kept the collector busy.
 */
export interface DescriptionText {
  readonly stems: ReadonlyMap<string, number>
  readonly fields: Readonly<Record<Field | "against", string>>
  /** The description it was made from: its words, as written, are read only when a word needs completing. */
  readonly description: ProductDescription
}

export const textOf = (d: ProductDescription): DescriptionText => {
  const stems = new Map<string, number>()
  const read = (field: Field | "against", text: string) => {
    const own = searchTokens(text).map(wordStem)
    for (const stem of own) stems.set(stem, (stems.get(stem) ?? 0) | BIT[field])
    return ` ${own.join(" ")} `
  }
  const fields = {
    name: read("name", d.name),
    category: read("category", d.category),
    summary: read("summary", d.summary),
    features: read("features", d.features),
    uses: read("uses", d.uses),
    audience: read("audience", d.audience),
    benefits: read("benefits", d.benefits),
    position: read("position", d.position),
    against: read("against", d.against)
  }
  return { stems, fields, description: d }
}

/** Whether a field has a form (a sequence of stems) in a row. */
const has = (text: DescriptionText, field: Field | "against", form: ReadonlyArray<string>): boolean => {
  if (form.length === 1) return ((text.stems.get(form[0]!) ?? 0) & BIT[field]) !== 0
  return form.every((s) => ((text.stems.get(s) ?? 0) & BIT[field]) !== 0) && text.fields[field].includes(` ${form.join(" ")} `)
}

/** A description's words as written (folded), what not-for aside: what a word may be the start or a typo of. */
export const wordsOf = (text: DescriptionText): ReadonlySet<string> => {
  const d = text.description
  return new Set(searchTokens(`${d.name} ${d.category} ${d.summary} ${d.features} ${d.uses} ${d.audience} ${d.benefits} ${d.position}`))
}

/** Where a concept's forms are found in a product. */
export interface ConceptMatch {
  /** The weight of the weightiest field that has it; 0 when none does. */
  readonly value: number
  /** Whether a field that says what the product does has it. */
  readonly descriptive: boolean
  /** Whether its record says it is not for it. */
  readonly against: boolean
}

export const matchConcept = (text: DescriptionText, forms: ReadonlyArray<ReadonlyArray<string>>): ConceptMatch => {
  let value = 0
  let fields = 0
  let descriptive = false
  for (const field of FIELDS) {
    // The request's own words count whole; a synonym's or an expansion's a little less: "billing" is not quite "invoicing".
    const at = forms.findIndex((form) => has(text, field, form))
    if (at < 0) continue
    fields++
    value = Math.max(value, FIELD_WEIGHTS[field] * (at === 0 ? 1 : SYNONYM_SHARE))
    if (DESCRIPTIVE.has(field)) descriptive = true
  }
  // Said in more fields than one, it is more what the product is about (a little: the weightiest field decides).
  return {
    value: value === 0 ? 0 : value + 0.05 * Math.min(fields - 1, 3),
    descriptive,
    against: forms.some((form) => has(text, "against", form))
  }
}

/** The words of some products that `word` starts, and those it is one typo of, with how many products have each. */
export const completionsAndTypos = (
  word: string,
  texts: ReadonlyArray<ReadonlySet<string>>
): { readonly completions: ReadonlyArray<string>; readonly typos: ReadonlyArray<readonly [string, number]> } => {
  const completions = new Set<string>()
  const typos = new Map<string, number>()
  for (const words of texts) {
    for (const w of words) {
      if (word.length >= 3 && w.length > word.length && w.startsWith(word)) completions.add(w)
      else if (isTypoOf(word, w)) typos.set(w, (typos.get(w) ?? 0) + 1)
    }
  }
  return {
    completions: [...completions].sort(),
    // The fix most products have first; then by the word, so that the same catalog gives the same fix.
    typos: [...typos].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  }
}
