/**
 * A relevance search answered as an agent's request (docs/search.md): the request read (the domain's
 * readRequest), its candidates found by the store's index (its own words first, then what the vocabulary says
 * they also are, and, for "alternative to X" where the catalog has X, X's category), each described and judged
 * (answerRequest), and the answer paged by offset. The answer is a window of at most ANSWER_WINDOW products,
 * the best the store found: deterministic, so a cursor's next page is the same answer's next slice.
 */
import { Effect } from "effect"
import {
  answerRequest,
  type Answer,
  type CatalogStore,
  type ListedProduct,
  type ProductDescription,
  type RequestReading,
  readRequest,
  searchTokens,
  type StoreError,
  type InvalidCursor,
  type Vocabulary,
  MAX_QUERY_WORDS
} from "@productdir/domain"

/** How many of the store's best matches an answer judges: the most a page holds. */
export const ANSWER_WINDOW = 100

export interface AnswerQuery {
  readonly q: string
  readonly category: string | undefined
  readonly updatedSince: Date | undefined
}

const unique = (words: ReadonlyArray<string>) => [...new Set(words)]

/** The words a store is asked for: what the request says, then what it names, then the other ways of saying it. */
const lookups = (reading: RequestReading, vocabulary: Vocabulary): { readonly own: string; readonly more: string } => {
  const key = reading.concepts.filter((c) => !c.generic)
  const labels = key.flatMap((c) => searchTokens(c.label))
  const named = reading.alternativeTo === undefined ? [] : searchTokens(reading.alternativeTo)
  const kind = reading.alternativeTo === undefined ? undefined : vocabulary.products.get(named.join(" "))
  const kindWords = kind === undefined ? [] : searchTokens(kind)
  const generic = reading.concepts.filter((c) => c.generic).flatMap((c) => c.lookup)
  // Generic words only when nothing else is asked: they find everything, and push what is asked out of the window.
  const own = unique([...labels, ...named, ...(labels.length + named.length === 0 ? generic : [])]).slice(0, MAX_QUERY_WORDS)
  const more = unique([...kindWords, ...key.flatMap((c) => c.lookup)])
    .filter((w) => !own.includes(w))
    .slice(0, MAX_QUERY_WORDS)
  return { own: own.join(" "), more: more.join(" ") }
}

/** Whether a product's name is the one a request names: the same words, or the name starts with them ("pathwise"). */
const isNamed = (name: string, named: string) => {
  const have = searchTokens(name)
  const want = searchTokens(named)
  return want.length > 0 && want.every((w, i) => have[i] === w)
}

export const answerQuery = (catalog: CatalogStore["Service"], vocabulary: Vocabulary, query: AnswerQuery) =>
  Effect.gen(function* () {
    const reading = readRequest(query.q, vocabulary)
    const { own, more } = lookups(reading, vocabulary)
    const filters = { category: query.category, updatedSince: query.updatedSince, sort: "relevance" as const, limit: ANSWER_WINDOW }
    const found: Array<ListedProduct> = []
    const add = (items: ReadonlyArray<ListedProduct>) => {
      for (const p of items) if (!found.some((f) => f.id === p.id)) found.push(p)
    }
    if (own !== "") add((yield* catalog.list({ ...filters, q: own })).items)
    if (more !== "") add((yield* catalog.list({ ...filters, q: more })).items)
    let target: ProductDescription | undefined
    if (reading.alternativeTo !== undefined) {
      const named = (yield* catalog.list({ q: reading.alternativeTo, sort: "relevance", limit: 5 })).items
      const product = named.find((p) => isNamed(p.content.name, reading.alternativeTo!))
      if (product !== undefined) {
        ;[target] = yield* catalog.describe([product.id])
        add((yield* catalog.list({ ...filters, sort: "trust", category: query.category ?? product.content.category })).items)
      }
    }
    const descriptions = new Map((yield* catalog.describe(found.map((p) => p.id))).map((d) => [d.id, d]))
    const candidates = found.flatMap((product) => {
      const description = descriptions.get(product.id)
      return description === undefined ? [] : [{ product, description }]
    })
    return answerRequest(reading, candidates, vocabulary, target)
  }) satisfies Effect.Effect<Answer, StoreError | InvalidCursor>
