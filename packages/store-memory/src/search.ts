/**
 * Search in memory, by the rules of packages/domain/src/record/search.ts and the way
 * PostgreSQL applies them (packages/store-postgres/src/search.ts): a product is
 * a list of weighted lexemes (English stems and plain words of its name,
 * category and body), a query is a set of operands (stems, prefixes, typo
 * corrections), and relevance is PostgreSQL's `ts_rank` over them, ported, so
 * both stores rank alike.
 */
import { stem } from "porter2"
import {
  ENGLISH_STOP_WORDS,
  isTypoOf,
  PREFIX_MIN_LENGTH,
  type Product,
  queryWords,
  searchFieldsOf,
  searchTokens,
  mayBeTypo,
  TYPO_MAX_WORDS
} from "@productdir/domain"

/** ts_rank's default weights for A (name), B (category) and C (body). */
const WEIGHTS = { name: 1.0, category: 0.4, body: 0.2 } as const

/** A product's lexemes, each with the weight of every position it holds, in position order. */
export type Document = ReadonlyMap<string, ReadonlyArray<number>>

const documents = new WeakMap<Product, { readonly lexemes: Document; readonly words: ReadonlyArray<string> }>()

const add = (lexemes: Map<string, Array<number>>, lexeme: string, weight: number) => {
  const positions = lexemes.get(lexeme)
  if (positions === undefined) lexemes.set(lexeme, [weight])
  else positions.push(weight)
}

/** The product's lexemes, in the order PostgreSQL concatenates them (productdir_search_vector). */
const indexOf = (product: Product) => {
  const known = documents.get(product)
  if (known !== undefined) return known
  const fields = searchFieldsOf(product.content)
  const lexemes = new Map<string, Array<number>>()
  const words = new Set<string>()
  for (const field of ["name", "category", "body"] as const) {
    const tokens = searchTokens(fields[field])
    for (const token of tokens) if (!ENGLISH_STOP_WORDS.has(token)) add(lexemes, stem(token), WEIGHTS[field])
    for (const token of tokens) {
      add(lexemes, token, WEIGHTS[field])
      words.add(token)
    }
  }
  const made = { lexemes, words: [...words] }
  documents.set(product, made)
  return made
}

const startsAny = (words: ReadonlySet<string>, prefix: string): boolean => {
  for (const w of words) if (w.startsWith(prefix)) return true
  return false
}

/** What a query looks for: exact lexemes and prefixes; and, word by word, what each of its words matches. */
export interface Operands {
  readonly exact: ReadonlyArray<string>
  readonly prefixes: ReadonlyArray<string>
  /** Each query word's own operands: a product has the word when it has any of them (coverageOf). */
  readonly words: ReadonlyArray<{ readonly exact: ReadonlyArray<string>; readonly prefixes: ReadonlyArray<string> }>
}

/**
 * A query's operands over a catalog: each word's stem, the word itself (as a
 * prefix when long enough), and, for a word no product word has or starts with,
 * the product words it is a typo of. Undefined when the query has no words.
 */
export const operandsOf = (q: string, products: Iterable<Product>): Operands | undefined => {
  const words = queryWords(q)
  if (words.length === 0) return undefined
  const vocabulary = new Set<string>()
  for (const p of products) for (const w of indexOf(p).words) vocabulary.add(w)
  const perWord: Array<{ exact: Array<string>; prefixes: Array<string> }> = []
  let typos = 0
  for (const word of words) {
    const own: { exact: Array<string>; prefixes: Array<string> } = {
      exact: ENGLISH_STOP_WORDS.has(word) ? [] : [stem(word)],
      // A word the catalog has is searched by its stem alone; any other also as the start of the word being typed.
      prefixes: word.length >= PREFIX_MIN_LENGTH && !vocabulary.has(word) ? [word] : []
    }
    perWord.push(own)
    if (!mayBeTypo(word) || startsAny(vocabulary, word) || typos++ >= TYPO_MAX_WORDS) continue
    for (const known of vocabulary) {
      // A stop word is no fix (as in PostgreSQL, where it is dropped from the query): `thier` is not a search for `their`.
      if (!ENGLISH_STOP_WORDS.has(known) && isTypoOf(word, known)) own.exact.push(stem(known))
    }
  }
  const prefixes = new Set(perWord.flatMap((w) => w.prefixes))
  // A prefix already matches the word it is: as in a tsquery, the same word counts once.
  const exact = new Set(perWord.flatMap((w) => w.exact).filter((e) => !prefixes.has(e)))
  return { exact: [...exact], prefixes: [...prefixes], words: perWord }
}

/**
 * How many of the query's words a product has (by any of a word's operands: its stem, its start, its typos' fixes),
 * given the prefixes it was found to start (rankOf has looked through its lexemes for them).
 */
const coverageOf = (lexemes: Document, operands: Operands, started: ReadonlySet<string>): number => {
  let covered = 0
  for (const word of operands.words) {
    if (word.exact.some((lexeme) => lexemes.has(lexeme)) || word.prefixes.some((prefix) => started.has(prefix))) covered++
  }
  return covered
}

/** One operand's share of ts_rank (calc_rank_or): its best weight, plus the rest fading as 1/j². */
const entryRank = (positions: ReadonlyArray<number>): number => {
  let sum = 0
  let best = -1
  let bestAt = 0
  positions.forEach((w, j) => {
    sum += w / ((j + 1) * (j + 1))
    if (w > best) {
      best = w
      bestAt = j
    }
  })
  return (best + sum - best / ((bestAt + 1) * (bestAt + 1))) / 1.64493406685
}

/**
 * How well a product matches, or undefined when it does not: how many of the query's words it has, then
 * PostgreSQL's ts_rank of the OR query (below 1) among products that have as many.
 */
export const rankOf = (product: Product, operands: Operands): number | undefined => {
  const { lexemes } = indexOf(product)
  let rank = 0
  let matched = false
  for (const lexeme of operands.exact) {
    const positions = lexemes.get(lexeme)
    if (positions === undefined) continue
    matched = true
    rank += entryRank(positions)
  }
  const started = new Set<string>()
  for (const prefix of operands.prefixes) {
    for (const [lexeme, positions] of lexemes) {
      if (!lexeme.startsWith(prefix)) continue
      matched = true
      started.add(prefix)
      rank += entryRank(positions)
    }
  }
  const size = operands.exact.length + operands.prefixes.length
  return matched ? coverageOf(lexemes, operands, started) + rank / size : undefined
}
