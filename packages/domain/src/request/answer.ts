/**
 * A request's answer from the products a store found for it (docs/search.md, "How a result is judged"):
 * each concept weighed by how many of them have it (a word most products have says little: `management`
 * below `invoice`; a generic word little at all), each product scored by the concepts it has and where,
 * against what its record says it is not for and the request's constraints, then ranked, the weak tail
 * cut, and every result told how well it matched. The answer says what the request was read as, which of
 * its words matched nothing, which were corrected, and, when nothing answers it, that nothing does.
 * The same products in any order give the same answer: ties go to trust, then to the id.
 */
import type { ListedProduct } from "../record/Product.ts"
import { trustScore } from "../trust/trust.ts"
import { completionsAndTypos, type DescriptionText, matchConcept, textOf, wordsOf } from "./assessment.ts"
import { constraintLabel, isHard, meets } from "./pricing.ts"
import type { ProductDescription } from "./ProductDescription.ts"
import { type Concept, kindConcepts, type RequestReading } from "./reading.ts"
import type { MatchQuality, SearchMatch, SearchReading } from "./SearchAnswer.ts"
import { termStems, type Vocabulary } from "./Vocabulary.ts"
import { searchTokens } from "../record/search.ts"

/** A product a store found for a request, with what the answer reads of it. */
export interface Candidate {
  readonly product: ListedProduct
  readonly description: ProductDescription
  /** Its description's words as the assessment reads them (textOf), when kept from an earlier answer. */
  readonly text?: DescriptionText | undefined
}

export interface AnsweredItem {
  readonly product: ListedProduct
  readonly match: SearchMatch
}

export interface Answer {
  readonly items: ReadonlyArray<AnsweredItem>
  readonly reading: SearchReading
}

/** What a generic word weighs beside a word that says what is wanted. */
const GENERIC_WEIGHT = 0.25
/** A result strong enough to answer: this share of the request's weight matched, no required constraint missed. */
const STRONG_COVERAGE = 0.55
/** And this share of the head of a noun-phrase request (reading.ts, `head`). */
const HEAD_COVERAGE = 0.75
/** Below this share of the best result's score, a result is cut when the best answers the request. */
const TAIL_SHARE = 0.5
/** A concept its record says the product is not for costs this much of the concept's weight. */
const AGAINST_COST = 0.8
/** An unmet required constraint keeps this much of a product's score; an unmet low price, LOW_PRICE_KEEPS. */
const UNMET_KEEPS = 0.55
const LOW_PRICE_KEEPS = 0.85

/** A concept as the answer looks for it. */
interface Sought {
  readonly label: string
  readonly forms: ReadonlyArray<ReadonlyArray<string>>
  readonly generic: boolean
  readonly word: string | undefined
  /** Matched by being of this category (the kind of the catalog product a request compares against). */
  readonly category: string | undefined
}

const fromConcept = (c: Concept): Sought => ({ label: c.label, forms: c.forms, generic: c.generic, word: c.word, category: undefined })

const round = (x: number) => Math.round(x * 100) / 100

const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The answer to a request from its candidates. `target` is the catalog product the request compares
 * against, when the catalog has it (the use case looks it up by name): it is left out, and products of its
 * category stand for "like it".
 */
export const answerRequest = (
  reading: RequestReading,
  candidates: ReadonlyArray<Candidate>,
  vocabulary: Vocabulary,
  target: ProductDescription | undefined
): Answer => {
  const pool = candidates.filter((c) => c.description.id !== target?.id)
  const texts = new Map<string, DescriptionText>(pool.map((c) => [c.product.id, c.text ?? textOf(c.description)]))
  const all = [...texts.values()]

  const sought: Array<Sought> = reading.concepts.map(fromConcept)
  let alternative: SearchReading["alternative_to"]
  if (reading.alternativeTo !== undefined) {
    const name = reading.alternativeTo
    if (target !== undefined) {
      sought.unshift({ label: `like ${target.name}`, forms: [], generic: false, word: undefined, category: target.category })
      alternative = { name, in_catalog: true, read_as: `products in ${target.category} other than ${target.name}` }
    } else {
      const forms = [termStems(name)]
      const named = all.some((t) => matchConcept(t, forms).value > 0)
      const kind = vocabulary.products.get(searchTokens(name).join(" "))
      if (named) sought.unshift({ label: name, forms, generic: false, word: undefined, category: undefined })
      if (kind !== undefined)
        for (const c of kindConcepts(vocabulary, kind)) if (!sought.some((s) => s.label === c.label)) sought.push(fromConcept(c))
      alternative = {
        name,
        in_catalog: false,
        read_as:
          named && kind !== undefined
            ? `products whose records name ${name}, and ${kind}`
            : named
              ? `products whose records name ${name}`
              : kind !== undefined
                ? kind
                : `${name} is not in the catalog and no record names it; searched the rest of the request`
      }
    }
  }

  // A word no product has, and that is no word of English or of the vocabulary: the start of a word, or a typo.
  const corrections: Array<{ word: string; read_as: string }> = []
  // The candidates' words, made the first time a word needs them.
  let words: ReadonlyArray<ReadonlySet<string>> | undefined
  // A word no product has is completed, as the start of a word being typed (`puls` → pulse), whatever it is; it is
  // read as a typo only when it is no word of English or of the vocabulary.
  const resolved = sought.map((s): Sought => {
    if (s.word === undefined || s.category !== undefined) return s
    if (all.some((t) => matchConcept(t, s.forms).value > 0)) return s
    words ??= all.map(wordsOf)
    const { completions, typos } = completionsAndTypos(s.word, words)
    if (completions.length > 0) return { ...s, forms: [...s.forms, ...completions.slice(0, 20).map((w) => termStems(w))] }
    if (vocabulary.isKnownWord(s.word)) return s
    const fix = typos[0]
    if (fix === undefined) return s
    corrections.push({ word: s.word, read_as: fix[0] })
    return { ...s, forms: [...s.forms, termStems(fix[0])] }
  })

  const matchesOf = (c: Candidate) => {
    const text = texts.get(c.product.id)!
    return resolved.map((s) =>
      s.category !== undefined
        ? { value: c.description.category.toLowerCase() === s.category.toLowerCase() ? 0.9 : 0, descriptive: true, against: false }
        : matchConcept(text, s.forms)
    )
  }
  const matches = new Map(pool.map((c) => [c.product.id, matchesOf(c)]))
  const df = resolved.map((_, i) => pool.filter((c) => matches.get(c.product.id)![i]!.value > 0).length)
  // A concept most candidates have tells them apart little; one none has weighs less than one some have (it may be a
  // word of the sentence rather than of the need), but still counts: a request whose main word nothing has is not answered.
  // A word no candidate has: a word of English there is more likely the sentence's ("hate", "ahead") than the need's; a
  // word English does not have (`vpn`, `crm`, a brand) is more likely the need's.
  const unfound = (s: Sought) => (s.word !== undefined && vocabulary.isKnownWord(s.word) ? 0.35 : 0.8)
  const weights = resolved.map(
    (s, i) => (s.generic ? GENERIC_WEIGHT : 1) * (df[i] === 0 ? unfound(s) : 1 / (1 + 0.35 * Math.log(1 + df[i]!)))
  )
  const head = new Set(reading.head)
  const key = resolved.map((s) => !s.generic)
  const anyKey = key.some(Boolean)
  const isKey = (i: number) => (anyKey ? key[i]! : true)
  const keyWeight = weights.reduce((sum, w, i) => sum + (isKey(i) ? w : 0), 0)
  const totalWeight = weights.reduce((sum, w) => sum + w, 0)

  const scored = pool.map((c) => {
    const m = matches.get(c.product.id)!
    let score = 0
    let covered = 0
    let descriptive = false
    const matched: Array<string> = []
    const missing: Array<string> = []
    const notFor: Array<string> = []
    m.forEach((x, i) => {
      const s = resolved[i]!
      if (x.value > 0) {
        // Having a concept at all counts most; where it is said, the rest: a product with more of the request ranks
        // above one that has less of it in weightier fields.
        score += weights[i]! * (0.5 + 0.5 * x.value)
        matched.push(s.label)
        if (isKey(i)) covered += weights[i]!
        if (isKey(i) && x.descriptive) descriptive = true
      } else if (isKey(i)) missing.push(s.label)
      // A not-for says which case of what the product does it does not fit ("retail support at peak volume"): when the
      // request has a head, that case is the head's ("bookkeeping"); a word of its context ("support" in "help desk
      // for the support team") alone is not that case.
      if (x.against && isKey(i) && (head.size === 0 || head.has(s.label))) {
        score -= weights[i]! * AGAINST_COST
        notFor.push(s.label)
      }
    })
    // The head of a noun-phrase request: what is wanted. Most of it must be there for a strong match.
    const headWeight = resolved.reduce((sum, s, i) => sum + (head.has(s.label) ? weights[i]! : 0), 0)
    const headCovered = resolved.reduce((sum, s, i) => sum + (head.has(s.label) && m[i]!.value > 0 ? weights[i]! : 0), 0)
    const headHeld = headWeight === 0 || headCovered / headWeight >= HEAD_COVERAGE
    const met: Array<string> = []
    const unmet: Array<string> = []
    let keeps = 1
    let hardUnmet = false
    for (const constraint of reading.constraints) {
      if (meets(constraint, c.description)) met.push(constraintLabel(constraint))
      else {
        unmet.push(constraintLabel(constraint))
        keeps *= isHard(constraint) ? UNMET_KEEPS : LOW_PRICE_KEEPS
        if (isHard(constraint)) hardUnmet = true
      }
    }
    const coverage = keyWeight === 0 ? 0 : covered / keyWeight
    const missesHead = headWeight > 0 && headCovered === 0
    const normalized = totalWeight === 0 ? 0 : (score / totalWeight) * keeps
    const quality: MatchQuality =
      coverage >= STRONG_COVERAGE && headHeld && descriptive && !hardUnmet && notFor.length === 0
        ? "strong"
        : covered > 0 && descriptive
          ? "partial"
          : "weak"
    return {
      product: c.product,
      score: normalized,
      covered: covered > 0,
      missesHead,
      match: {
        score: round(Math.max(0, Math.min(1, normalized))),
        quality,
        matched,
        missing,
        not_for: notFor,
        constraints: { met, unmet }
      } satisfies SearchMatch
    }
  })

  const ranked = scored
    .filter((x) => x.score > 0 && (x.covered || !anyKey))
    .sort(
      (a, b) =>
        b.score - a.score || trustScore(b.product.weighted) - trustScore(a.product.weighted) || compareIds(a.product.id, b.product.id)
    )
  const strong = ranked.some((x) => x.match.quality === "strong")
  const best = ranked[0]?.score ?? 0
  // When the best result answers the request, the tail that matches little of it is noise: cut. Otherwise every
  // result is kept, marked for what it is, so that an agent can judge a partial answer for itself.
  // So is a result that has none of what a noun-phrase request asks for ("help desk with SSO": a password manager).
  const kept = strong ? ranked.filter((x) => x.match.quality !== "weak" && !x.missesHead && x.score >= TAIL_SHARE * best) : ranked

  const unmatched = resolved.filter((s, i) => df[i] === 0 && s.category === undefined).map((s) => s.label)
  const concepts = resolved.map((s) => s.label)
  const answer =
    kept.length === 0
      ? concepts.length === 0
        ? "Nothing to search for: the request has no words that say what is wanted."
        : `Nothing in the catalog matches this request${unmatched.length > 0 ? `: nothing has ${unmatched.join(", ")}` : ""}.`
      : strong
        ? `${kept.filter((x) => x.match.quality === "strong").length} of these match the request well; each result says what it matched.`
        : `No product matches the whole request${unmatched.length > 0 ? ` (nothing has ${unmatched.join(", ")})` : ""}: these match part of it, as each says.`
  return {
    items: kept.map((x) => ({ product: x.product, match: x.match })),
    reading: {
      strong,
      answer,
      concepts,
      unmatched,
      corrections,
      ignored: [...reading.ignored],
      constraints: reading.constraints.map(constraintLabel),
      ...(alternative === undefined ? {} : { alternative_to: alternative })
    }
  }
}
