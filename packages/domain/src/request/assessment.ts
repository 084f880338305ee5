/**
 * How well one product answers a request (docs/search.md, "How a result is judged"): each concept of the
 * request is looked for in each field that describes the product, and counts by the weightiest field that
 * has it (its name most, what it competes with least); a concept its record says it is not for counts
 * against it; each constraint is met or not. answer.ts weighs the concepts and ranks the products.
 */
import { foldAccents, isTypoOf } from "../record/search.ts"
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

/**
 * A product's description as the assessment reads it: each field's text, lower-cased and folded. It is not split
 * into words: a form is looked for where its first two letters start a word, and only the words found there are cut
 * out and stemmed. Splitting and stemming every word of every candidate made most of an answer's garbage, and at a
 * million products the collector took more time than the answers.
 */
export interface DescriptionText {
  readonly fields: Readonly<Record<Field | "against", string>>
  /** The description it was made from: its words, as written, are read when a word needs completing. */
  readonly description: ProductDescription
}

const folded = (text: string) => foldAccents(text.toLowerCase())

export const textOf = (d: ProductDescription): DescriptionText => ({
  fields: {
    name: folded(d.name),
    category: folded(d.category),
    summary: folded(d.summary),
    features: folded(d.features),
    uses: folded(d.uses),
    audience: folded(d.audience),
    benefits: folded(d.benefits),
    position: folded(d.position),
    against: folded(d.against)
  },
  description: d
})

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u
/** Whether a character of folded text is part of a word (searchTokens' rule: letters and digits). */
const inWord = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i)
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90)
  return LETTER_OR_DIGIT.test(text[i]!)
}
const wordEnd = (text: string, from: number): number => {
  let i = from
  while (i < text.length && inWord(text, i)) i++
  return i
}

/** Whether a word has a stem: the stem itself, or a word that stems to it. */
const stemsTo = (word: string, stem: string): boolean => word === stem || (word.length >= stem.length - 1 && wordStem(word) === stem)

/** Whether a field has a form (a sequence of stems) in a row. */
const has = (text: DescriptionText, field: Field | "against", form: ReadonlyArray<string>): boolean => {
  const t = text.fields[field]
  const first = form[0]!
  const lead = first.length > 2 ? first.slice(0, 2) : first
  for (let at = t.indexOf(lead); at >= 0; at = t.indexOf(lead, at + 1)) {
    if (at > 0 && inWord(t, at - 1)) continue
    let end = wordEnd(t, at)
    if (!stemsTo(t.slice(at, end), first)) continue
    let k = 1
    while (k < form.length) {
      let start = end
      while (start < t.length && !inWord(t, start)) start++
      end = wordEnd(t, start)
      if (end === start || !stemsTo(t.slice(start, end), form[k]!)) break
      k++
    }
    if (k === form.length) return true
  }
  return false
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
    let at = -1
    for (let f = 0; f < forms.length && at < 0; f++) if (has(text, field, forms[f]!)) at = f
    if (at < 0) continue
    fields++
    value = Math.max(value, FIELD_WEIGHTS[field] * (at === 0 ? 1 : SYNONYM_SHARE))
    if (DESCRIPTIVE.has(field)) descriptive = true
  }
  // Said in more fields than one, it is more what the product is about (a little: the weightiest field decides).
  return {
    value: value === 0 ? 0 : value + 0.05 * Math.min(fields - 1, 3),
    descriptive,
    against: text.fields.against.length > 0 && forms.some((form) => has(text, "against", form))
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
