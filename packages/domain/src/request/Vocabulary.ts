/**
 * The words search reads a request by (docs/search.md, "Reading a request"): kept as data, in
 * data/search-vocabulary.json, which an operator extends with a file of the same shape. What a file says
 * becomes lookups here; reading the files is the app's (it has the file system), so this stays pure.
 */
import { Schema } from "effect"
import { stem } from "porter2"
import { searchTokens } from "../record/search.ts"

const Term = Schema.String.check(Schema.isNonEmpty({ message: "must not be empty" }), Schema.isMaxLength(200))

/** A vocabulary file: every section optional, so an operator's file says only what it adds. */
export const VocabularyFile = Schema.Struct({
  about: Schema.optionalKey(Schema.String),
  synonyms: Schema.optionalKey(
    Schema.Array(Schema.Array(Term).check(Schema.isMinLength(2, { message: "must name at least two words that mean the same" })))
  ),
  abbreviations: Schema.optionalKey(Schema.Record(Schema.String, Schema.Array(Term))),
  products: Schema.optionalKey(Schema.Record(Schema.String, Term)),
  generic: Schema.optionalKey(Schema.Array(Term)),
  phrasing: Schema.optionalKey(Schema.Array(Term))
}).annotate({ identifier: "VocabularyFile" })
export type VocabularyFile = typeof VocabularyFile.Type

/** A word's English stem (porter2, PostgreSQL's `english` algorithm), kept for the words asked most. */
const stemCache = new Map<string, string>()
export const wordStem = (token: string): string => {
  const known = stemCache.get(token)
  if (known !== undefined) return known
  const made = stem(token)
  // Bounded: a hostile text of made-up words must not grow it without end.
  if (stemCache.size > 20_000) stemCache.clear()
  stemCache.set(token, made)
  return made
}
/** Stems of a text's words, in order: how a term and a product's text are compared. */
export const termStems = (text: string): ReadonlyArray<string> => searchTokens(text).map(wordStem)

/** What the search knows of words, merged from every file. */
export interface Vocabulary {
  /** Each group: the terms (as written) that mean the same; an abbreviation is a group with what it stands for. */
  readonly groups: ReadonlyArray<ReadonlyArray<string>>
  /** A term's tokens joined by a space → the groups it is in. */
  readonly groupsOf: ReadonlyMap<string, ReadonlyArray<number>>
  /** The most tokens a term has: how far a request is looked ahead for one. */
  readonly longestTerm: number
  /** A product a request may compare against (its tokens joined by a space) → what it is. */
  readonly products: ReadonlyMap<string, string>
  readonly generic: ReadonlySet<string>
  readonly phrasing: ReadonlySet<string>
  /** Whether a word is a word of English (or of the vocabulary): such a word is never read as a typo of another. */
  readonly isKnownWord: (word: string) => boolean
}

const key = (text: string) => searchTokens(text).join(" ")

/** The vocabulary of some files, the later ones adding to the earlier, and a list of English words. */
export const makeVocabulary = (
  files: ReadonlyArray<VocabularyFile>,
  englishWords: { readonly has: (word: string) => boolean }
): Vocabulary => {
  const groups: Array<ReadonlyArray<string>> = []
  const products = new Map<string, string>()
  const generic = new Set<string>()
  const phrasing = new Set<string>()
  for (const file of files) {
    for (const group of file.synonyms ?? []) groups.push(group)
    for (const [short, longs] of Object.entries(file.abbreviations ?? {})) groups.push([short, ...longs])
    for (const [name, what] of Object.entries(file.products ?? {})) products.set(key(name), what)
    for (const word of file.generic ?? []) for (const t of searchTokens(word)) generic.add(t)
    for (const word of file.phrasing ?? []) for (const t of searchTokens(word)) phrasing.add(t)
  }
  const groupsOf = new Map<string, Array<number>>()
  const vocabularyWords = new Set<string>()
  let longestTerm = 1
  groups.forEach((group, i) => {
    for (const term of group) {
      const tokens = searchTokens(term)
      if (tokens.length === 0) continue
      longestTerm = Math.max(longestTerm, tokens.length)
      for (const t of tokens) vocabularyWords.add(t)
      const k = tokens.join(" ")
      const at = groupsOf.get(k)
      if (at === undefined) groupsOf.set(k, [i])
      else if (!at.includes(i)) at.push(i)
    }
  })
  for (const name of products.keys()) {
    longestTerm = Math.max(longestTerm, name.split(" ").length)
    for (const t of name.split(" ")) vocabularyWords.add(t)
  }
  return {
    groups,
    groupsOf,
    longestTerm,
    products,
    generic,
    phrasing,
    isKnownWord: (word) => englishWords.has(word) || vocabularyWords.has(word)
  }
}

/** A vocabulary of nothing: every word is read as written. */
export const emptyVocabulary: Vocabulary = makeVocabulary([], new Set())
