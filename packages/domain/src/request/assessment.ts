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

/** A field's words, stemmed, in order; with where each stem stands, for terms of several words. */
interface FieldText {
  readonly stems: ReadonlyArray<string>
  readonly at: ReadonlyMap<string, ReadonlyArray<number>>
}

/** What a match by a synonym or an expansion is worth beside one by the request's own words. */
export const SYNONYM_SHARE = 0.85

/** A product's description as the assessment reads it. */
export interface DescriptionText {
  readonly fields: Readonly<Record<Field | "against", FieldText>>
  /** Its words as written (folded): what a word of the request may be the start or a typo of. */
  readonly words: ReadonlySet<string>
}

const fieldText = (text: string, words: Set<string>): FieldText => {
  const tokens = searchTokens(text)
  const stems = tokens.map(wordStem)
  const at = new Map<string, Array<number>>()
  stems.forEach((s, i) => {
    const list = at.get(s)
    if (list === undefined) at.set(s, [i])
    else list.push(i)
  })
  for (const t of tokens) words.add(t)
  return { stems, at }
}

export const textOf = (d: ProductDescription): DescriptionText => {
  const words = new Set<string>()
  const fields = {
    name: fieldText(d.name, words),
    category: fieldText(d.category, words),
    summary: fieldText(d.summary, words),
    features: fieldText(d.features, words),
    uses: fieldText(d.uses, words),
    audience: fieldText(d.audience, words),
    benefits: fieldText(d.benefits, words),
    position: fieldText(d.position, words),
    against: fieldText(d.against, new Set())
  }
  return { fields, words }
}

/** Whether a field has a form (a sequence of stems) in a row. */
const has = (field: FieldText, form: ReadonlyArray<string>): boolean => {
  const starts = field.at.get(form[0]!)
  if (starts === undefined) return false
  if (form.length === 1) return true
  return starts.some((i) => form.every((s, k) => field.stems[i + k] === s))
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
    const at = forms.findIndex((form) => has(text.fields[field], form))
    if (at < 0) continue
    fields++
    value = Math.max(value, FIELD_WEIGHTS[field] * (at === 0 ? 1 : SYNONYM_SHARE))
    if (DESCRIPTIVE.has(field)) descriptive = true
  }
  // Said in more fields than one, it is more what the product is about (a little: the weightiest field decides).
  return {
    value: value === 0 ? 0 : value + 0.05 * Math.min(fields - 1, 3),
    descriptive,
    against: forms.some((form) => has(text.fields.against, form))
  }
}

/** The words of some products that `word` starts, and those it is one typo of, with how many products have each. */
export const completionsAndTypos = (
  word: string,
  texts: ReadonlyArray<DescriptionText>
): { readonly completions: ReadonlyArray<string>; readonly typos: ReadonlyArray<readonly [string, number]> } => {
  const completions = new Set<string>()
  const typos = new Map<string, number>()
  for (const text of texts) {
    for (const w of text.words) {
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
