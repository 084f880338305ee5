/**
 * How an agent's request is read (docs/search.md, "Reading a request"): what it asks for (concepts, each
 * with the other ways the vocabulary says it), what it compares against ("alternative to X", "like X
 * but…"), what it requires of price and plan, and what is only phrasing. Pure: the vocabulary is given.
 */
import { ENGLISH_STOP_WORDS, foldAccents, searchTokens } from "../record/search.ts"
import { wordStem, type Vocabulary } from "./Vocabulary.ts"

/** One thing a request asks for, and every way a product's text may say it. */
export interface Concept {
  /** As the request says it (folded), e.g. `invoices`, `point of sale`. */
  readonly label: string
  /** Stem sequences that match: the label's, and its synonyms' and expansions' (`pto` → `time off`, `vacation`). */
  readonly forms: ReadonlyArray<ReadonlyArray<string>>
  /** The words to look it up by in a store's index: the label's, then its synonyms'. */
  readonly lookup: ReadonlyArray<string>
  /** A word that says little on its own (`software`, `team`): it weighs little. */
  readonly generic: boolean
  /** The one word it was written as, when it was one word: a word to complete or correct when nothing has it. */
  readonly word: string | undefined
  /** Read from what a product the request names is (the vocabulary's `products`), not from the request's own words. */
  readonly fromKind: boolean
}

/** What a request requires of a product's price and plans. */
export type Constraint =
  | { readonly kind: "free_plan" }
  | { readonly kind: "max_price"; readonly amount: number; readonly currency: string | undefined }
  | { readonly kind: "no_subscription" }
  | { readonly kind: "low_price" }

export interface RequestReading {
  readonly concepts: ReadonlyArray<Concept>
  /** The product a request compares against ("alternative to Trello", "like Zendesk but…"), folded. */
  readonly alternativeTo: string | undefined
  readonly constraints: ReadonlyArray<Constraint>
  /**
   * The concepts that name what is wanted, when the request is a noun phrase ("VPN for remote employees": `vpn`):
   * those before the first word that starts its context (`for`, `with`, `that`…). Empty for a sentence ("I need a
   * tool that…"), whose wants are spread through it. A product without them is not a strong match.
   */
  readonly head: ReadonlyArray<string>
  /** Words left out: stop words and phrasing ("I need a tool that…"). */
  readonly ignored: ReadonlyArray<string>
}

/** At most this many concepts are read from a request (the rest are ignored, and said to be). */
export const MAX_CONCEPTS = 10

const CURRENCY: Record<string, string> = {
  $: "USD",
  dollar: "USD",
  dollars: "USD",
  usd: "USD",
  "€": "EUR",
  euro: "EUR",
  euros: "EUR",
  eur: "EUR",
  "£": "GBP",
  pound: "GBP",
  pounds: "GBP",
  gbp: "GBP"
}

const AMOUNT = String.raw`([$€£])?\s*(\d+(?:[.,]\d+)?)\s*(k\b)?\s*(dollars?|usd|euros?|eur|pounds?|gbp|[$€£])?`
const PERIOD = String.raw`(?:\s*(?:/|per|a|an)\s*(?:user|seat|head|person|month|mo|year|yr|annum))*`
const PRICE_CEILING = new RegExp(
  String.raw`(?:\bunder|\bbelow|\bless than|\bcheaper than|\bno more than|\bat most|\bmax(?:imum)?|\bup to|\bwithin|\bbudget of|\bbudget is|<=?)\s*${AMOUNT}${PERIOD}(?:\s+or less)?`,
  "gu"
)
const AMOUNT_OR_LESS = new RegExp(String.raw`([$€£])\s*(\d+(?:[.,]\d+)?)${PERIOD}\s+or less`, "gu")
const NO_SUBSCRIPTION =
  /\b(?:without (?:a |any )?(?:subscription|monthly (?:fees?|plans?)|recurring (?:fees?|payments?))|no (?:subscription|monthly fees?|recurring (?:fees?|charges?|payments?))|not (?:a )?subscription|one[- ]time (?:purchase|payment|fee|price|licen[cs]e)|pay(?:ing)? once|lifetime (?:licen[cs]e|deal|plan)|buy (?:it )?outright)\b/gu
const FREE_PLAN =
  /(?<![\p{L}\p{N}-])(?:free (?:plan|tier|version|option|edition|account)s?|for free|free of charge|at no cost|no cost|zero cost|costs? nothing|free)(?![\p{L}\p{N}-])/gu
const LOW_PRICE =
  /\b(?:cheap|cheaper|cheapest|affordable|inexpensive|budget|low[- ]cost|low[- ]priced|costs? less|less expensive|lower (?:price|cost)s?|price[- ]sensitive|on a shoestring)\b/gu

/** The name an "alternative" phrase compares against: up to four words, ending before a word that starts the rest. */
const NAME = String.raw`([\p{L}\p{N}][\p{L}\p{N}.&'+-]*(?:\s+[\p{L}\p{N}][\p{L}\p{N}.&'+-]*){0,3})`
const BEFORE_NAME = new RegExp(
  String.raw`\b(?:alternatives? (?:to|for)|replacements? (?:for|of|to)|a replacement for|replace|replacing|instead of|switch(?:ing)? (?:away )?from|mov(?:e|ing) (?:away )?from|migrat(?:e|ing) (?:away )?from|similar to|comparable to|competitors? (?:to|of)|compared (?:to|with)|(?:something|anything|a tool|a product|an app|one|software) like|like|vs\.?|versus)\s+${NAME}`,
  "giu"
)
const AFTER_NAME = new RegExp(String.raw`${NAME}\s+(?:alternatives?|replacements?|competitors?|clones?|equivalents?|substitutes?)\b`, "giu")
/** Words that end a name read after "like X" or start the rest of a request after it. */
const NAME_ENDS = new Set(
  "but that which who with without for in on at to and or so because except though although plus while where when than only just mainly mostly as from by".split(
    " "
  )
)

const nameWords = (vocabulary: Vocabulary, text: string, backwards: boolean): Array<string> => {
  const tokens = searchTokens(text)
  const out: Array<string> = []
  const ordered = backwards ? [...tokens].reverse() : tokens
  for (const t of ordered) {
    if (NAME_ENDS.has(t) || ENGLISH_STOP_WORDS.has(t) || vocabulary.phrasing.has(t)) break
    // A name is not its generic words ("a software like …"): they end it when it has none of its own yet.
    if (out.length === 0 && vocabulary.generic.has(t)) break
    out.push(t)
  }
  return backwards ? out.reverse() : out
}

/** The product a request compares against, and the request without the phrase that names it. */
const alternativeOf = (vocabulary: Vocabulary, text: string): { readonly name: string; readonly rest: string } | undefined => {
  for (const match of text.matchAll(AFTER_NAME)) {
    const words = nameWords(vocabulary, match[1]!, true)
    if (words.length === 0) continue
    const at = match.index + match[0].length
    const before = match[1]!.split(/\s+/u)
    const kept = before.slice(0, Math.max(0, before.length - words.length)).join(" ")
    return { name: words.join(" "), rest: `${text.slice(0, match.index)} ${kept} ${text.slice(at)}` }
  }
  for (const match of text.matchAll(BEFORE_NAME)) {
    const words = nameWords(vocabulary, match[1]!, false)
    if (words.length === 0) continue
    // "like" alone must be followed by a name, not by phrasing: "I'd like to track time" compares against nothing.
    const nameStart = match.index + match[0].length - match[1]!.length
    const nameText = searchTokens(match[1]!).slice(0, words.length)
    let end = nameStart
    for (const word of nameText) end = text.indexOf(word, end) + word.length
    return { name: words.join(" "), rest: `${text.slice(0, match.index)} ${text.slice(end)}` }
  }
  return undefined
}

const amountOf = (digits: string, thousands: string | undefined) => Number(digits.replace(",", ".")) * (thousands === undefined ? 1 : 1000)

/** The constraints of a request, and the request without the words that said them. */
const constraintsOf = (text: string): { readonly constraints: ReadonlyArray<Constraint>; readonly rest: string } => {
  const constraints: Array<Constraint> = []
  let rest = text
  rest = rest.replace(
    PRICE_CEILING,
    (whole, before: string | undefined, digits: string, k: string | undefined, after: string | undefined) => {
      const currency = CURRENCY[before ?? ""] ?? CURRENCY[after ?? ""]
      constraints.push({ kind: "max_price", amount: amountOf(digits, k), currency })
      return " ".repeat(whole.length)
    }
  )
  rest = rest.replace(AMOUNT_OR_LESS, (whole, symbol: string, digits: string) => {
    constraints.push({ kind: "max_price", amount: amountOf(digits, undefined), currency: CURRENCY[symbol] })
    return " ".repeat(whole.length)
  })
  rest = rest.replace(NO_SUBSCRIPTION, (whole) => {
    if (!constraints.some((c) => c.kind === "no_subscription")) constraints.push({ kind: "no_subscription" })
    return " ".repeat(whole.length)
  })
  rest = rest.replace(FREE_PLAN, (whole) => {
    if (!constraints.some((c) => c.kind === "free_plan")) constraints.push({ kind: "free_plan" })
    return " ".repeat(whole.length)
  })
  rest = rest.replace(LOW_PRICE, (whole) => {
    if (!constraints.some((c) => c.kind === "low_price" || c.kind === "max_price" || c.kind === "free_plan"))
      constraints.push({ kind: "low_price" })
    return " ".repeat(whole.length)
  })
  // A ceiling or a free plan says more than "cheap": the softer one goes.
  const exact = constraints.some((c) => c.kind === "max_price" || c.kind === "free_plan")
  return { constraints: exact ? constraints.filter((c) => c.kind !== "low_price") : constraints, rest }
}

const formsOf = (vocabulary: Vocabulary, label: string): { forms: Array<Array<string>>; lookup: Array<string> } => {
  const terms = [label]
  for (const g of vocabulary.groupsOf.get(label) ?? []) for (const term of vocabulary.groups[g]!) terms.push(term)
  const forms: Array<Array<string>> = []
  const lookup: Array<string> = []
  const seen = new Set<string>()
  for (const term of terms) {
    const tokens = searchTokens(term)
    if (tokens.length === 0) continue
    const stems = tokens.map(wordStem)
    const k = stems.join(" ")
    if (seen.has(k)) continue
    seen.add(k)
    forms.push(stems)
    for (const t of tokens) if (!ENGLISH_STOP_WORDS.has(t) && !lookup.includes(t)) lookup.push(t)
  }
  return { forms, lookup }
}

/** First words of a request that make it a sentence rather than the name of what is wanted. */
const SENTENCE_OPENERS = new Set(
  "i im id ive we our ours my me us you your they their he she it its the this these those what which how why can could is are do does should would will please hi hello hey".split(
    " "
  )
)

/** Words that end the head of a noun-phrase request and start its context. */
const CONTEXT_STARTS = new Set(
  "for with that which who whom whose to in on at without from by where when so because but under below within via using like except".split(
    " "
  )
)

/**
 * The concepts of a text, longest vocabulary terms first; words that are only phrasing are set aside. `head`, when
 * given, gets the labels of the concepts before the first word of context, if the text starts with a concept.
 */
const conceptsOf = (
  vocabulary: Vocabulary,
  text: string,
  fromKind: boolean,
  ignored: Array<string>,
  head?: Array<string>
): Array<Concept> => {
  const tokens = searchTokens(text)
  const concepts: Array<Concept> = []
  const at = tokens.findIndex((t) => !ENGLISH_STOP_WORDS.has(t) || CONTEXT_STARTS.has(t))
  const first = tokens[at]
  // A word of phrasing that starts a term ("help" of "help desk") is the term's.
  const startsTerm = (i: number) =>
    Array.from({ length: Math.min(vocabulary.longestTerm, tokens.length - i) - 1 }, (_, k) => tokens.slice(i, i + k + 2).join(" ")).some(
      (label) => vocabulary.groupsOf.has(label)
    )
  // A request that opens as a sentence ("I need…", "Our app keeps…"), with phrasing or with context ("for my team…")
  // has no head: what it wants is anywhere in it.
  let inHead =
    head !== undefined &&
    first !== undefined &&
    !SENTENCE_OPENERS.has(tokens[0]!) &&
    (!vocabulary.phrasing.has(first) || startsTerm(at)) &&
    !CONTEXT_STARTS.has(first)
  let i = 0
  while (i < tokens.length) {
    if (CONTEXT_STARTS.has(tokens[i]!)) inHead = false
    let taken = 0
    for (let n = Math.min(vocabulary.longestTerm, tokens.length - i); n >= 2 && taken === 0; n--) {
      const label = tokens.slice(i, i + n).join(" ")
      if (vocabulary.groupsOf.has(label)) {
        const { forms, lookup } = formsOf(vocabulary, label)
        concepts.push({ label, forms, lookup, generic: false, word: undefined, fromKind })
        if (inHead) head?.push(label)
        taken = n
      }
    }
    if (taken > 0) {
      i += taken
      continue
    }
    const token = tokens[i]!
    i++
    if (ENGLISH_STOP_WORDS.has(token) || vocabulary.phrasing.has(token) || /^\d+$/u.test(token)) {
      ignored.push(token)
      continue
    }
    const { forms, lookup } = formsOf(vocabulary, token)
    const generic = vocabulary.generic.has(token)
    concepts.push({ label: token, forms, lookup, generic, word: token, fromKind })
    if (inHead && !generic) head?.push(token)
  }
  return concepts
}

/** How `q` reads: its concepts, what it compares against, its constraints, and what was left out. */
export const readRequest = (q: string, vocabulary: Vocabulary): RequestReading => {
  const text = foldAccents(q.toLowerCase())
  const { constraints, rest: withoutConstraints } = constraintsOf(text)
  const alternative = alternativeOf(vocabulary, withoutConstraints)
  const ignored: Array<string> = []
  const head: Array<string> = []
  const concepts = conceptsOf(vocabulary, alternative?.rest ?? withoutConstraints, false, ignored, head)
  // A request of phrasing alone ("find a tool") asks for what it says: its words are searched as written.
  const own =
    concepts.length > 0 || alternative !== undefined
      ? concepts
      : ignored
          .filter((t) => !ENGLISH_STOP_WORDS.has(t) && !/^\d+$/u.test(t))
          .map((token): Concept => ({ ...formsOf(vocabulary, token), label: token, generic: true, word: token, fromKind: false }))
  const unique = new Map<string, Concept>()
  for (const c of own) if (!unique.has(c.label)) unique.set(c.label, c)
  const kept = [...unique.values()].slice(0, MAX_CONCEPTS)
  return {
    concepts: kept,
    alternativeTo: alternative?.name,
    constraints,
    head: head.filter((label) => kept.some((c) => c.label === label)),
    ignored: [
      ...new Set([...ignored.filter((t) => !unique.has(t) || !kept.some((c) => c.label === t)), ...[...unique.keys()].slice(MAX_CONCEPTS)])
    ]
  }
}

/** The concepts of what a product the request names is (the vocabulary's `products`), to search for in its place. */
export const kindConcepts = (vocabulary: Vocabulary, what: string): ReadonlyArray<Concept> =>
  conceptsOf(vocabulary, foldAccents(what.toLowerCase()), true, []).filter((c) => !c.generic)
