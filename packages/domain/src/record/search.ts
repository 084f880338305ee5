/**
 * Search (docs/api.md, "Search and list"): how a query becomes words and what a
 * word matches, written once so every store finds the same products.
 *
 * A query word matches a product word when
 * - both have the same English stem (`invoicing` finds `invoice`, `invoices`),
 * - it starts the product word (`schemaf` finds `Schemaforge`: the word being typed),
 * - or, when no product word has it or starts with it, it is one typo away from
 *   one that exists (`tallyhuose` finds `Tallyhouse`).
 * Accents are folded on both sides (`zurich` finds `Zürich`), case never matters.
 * A product matches when any word of the query does. It ranks first by how many
 * of the query's words it has ("password manager for teams": a password manager
 * for teams above a product named "Teams" that has none of the others), then by
 * how weighty the fields that have them are (name, then category, then the rest)
 * and how often. PostgreSQL does the stemming and folding with its own dictionaries
 * (`english`, `unaccent`); the memory store with the same algorithms.
 */
import type { ProductContent } from "./ProductContent.ts"

/** Letters NFKD does not decompose, folded as PostgreSQL's `unaccent` folds them. */
const FOLDS: Record<string, string> = {
  Ø: "O",
  ø: "o",
  Æ: "AE",
  æ: "ae",
  Œ: "OE",
  œ: "oe",
  ß: "ss",
  Ł: "L",
  ł: "l",
  Đ: "D",
  đ: "d",
  Þ: "TH",
  þ: "th",
  Ð: "D",
  ð: "d",
  ı: "i",
  Ħ: "H",
  ħ: "h",
  Ŧ: "T",
  ŧ: "t"
}
const UNFOLDED = new RegExp(`[${Object.keys(FOLDS).join("")}]`, "gu")

/** Only ASCII: nothing to fold. */
const isAscii = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false
  return true
}

/**
 * Text without diacritics: `Ñandú` → `Nandu`, `Økonomi` → `Okonomi`. ASCII text, most of it, is returned as it is:
 * normalizing it made three copies of every text a search answer reads, and at a million products the collector's
 * work for them outweighed the answers'.
 */
export const foldAccents = (text: string): string =>
  isAscii(text)
    ? text
    : text
        .normalize("NFKD")
        .replace(/\p{M}+/gu, "")
        .replace(UNFOLDED, (c) => FOLDS[c] ?? c)

/** Lower-case, accent-free runs of letters and digits: the words of a text. */
export const searchTokens = (text: string): ReadonlyArray<string> =>
  foldAccents(text.toLowerCase())
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0)

/** PostgreSQL's English stop words (tsearch_data/english.stop): too common to mean anything. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself " +
    "it its itself they them their theirs themselves what which who whom this that these those am is are was were be " +
    "been being have has had having do does did doing a an the and but if or because as until while of at by for with " +
    "about against between into through during before after above below to from up down in out on off over under " +
    "again further then once here there when where why how all any both each few more most other some such no nor not " +
    "only own same so than too very s t can will just don should now"
  ).split(" ")
)

/** At most this many words of a query are searched for; the rest are ignored. */
export const MAX_QUERY_WORDS = 8
/** A word this long or longer also matches the product words it starts. */
export const PREFIX_MIN_LENGTH = 3
/** A word this long or longer may be a typo of a product word; shorter words are too ambiguous. */
export const TYPO_MIN_LENGTH = 4
/**
 * A word longer than this is searched as written, not as a typo: no word people type is that long, and
 * the work of finding what a word is a typo of grows with its length (its one-edit variants, thousands
 * for 200 letters, each a probe), which a hostile query would spend on every request.
 */
export const TYPO_MAX_LENGTH = 24
/** At most this many words of a query (the first that no product word has or starts) are looked up as typos. */
export const TYPO_MAX_WORDS = 3

/** Whether `word`, which no product word has or starts, is long and short enough to be looked up as a typo. */
export const mayBeTypo = (word: string): boolean => word.length >= TYPO_MIN_LENGTH && word.length <= TYPO_MAX_LENGTH

/**
 * Words that frame a request rather than say what is wanted ("find an invoicing tool", "I need software for
 * payroll"): a product that has one of them (a "Developer Tools" category) matched as well as the one that does
 * what was asked, and ranked above it when that word sat in a weightier field. Left out when the query has
 * other words; a query of them alone (`tools`) is searched as written.
 */
export const REQUEST_WORDS: ReadonlySet<string> = new Set(
  "find finding need needs want wants looking look recommend suggest please tool tools software solution solutions".split(" ")
)

/**
 * The words of a query that are searched for: distinct, stop words left out, request words too when others
 * remain, at most MAX_QUERY_WORDS. A query with none (`the`, `?!`) filters nothing.
 */
export const queryWords = (q: string): ReadonlyArray<string> => {
  const words = [...new Set(searchTokens(q))].filter((t) => !ENGLISH_STOP_WORDS.has(t))
  const meant = words.filter((t) => !REQUEST_WORDS.has(t))
  return (meant.length > 0 ? meant : words).slice(0, MAX_QUERY_WORDS)
}

/**
 * Whether `typed` is one typo away from `known` (a letter wrong, missing, extra,
 * or two neighbours swapped); two typos for words of eight letters or more.
 * Optimal string alignment distance, bounded.
 */
export const isTypoOf = (typed: string, known: string): boolean => {
  if (typed === known || !mayBeTypo(typed)) return false
  const allowed = typed.length >= 8 ? 2 : 1
  if (Math.abs(typed.length - known.length) > allowed) return false
  const a = [...typed]
  const b = [...known]
  let before = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0)
    current[0] = i
    let best = current[0]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1)
      current[j] = d
      best = Math.min(best, d)
    }
    if (best > allowed) return false
    before = previous
    previous = current
  }
  return previous[b.length]! <= allowed
}

/** How many characters of a product's text are searched: enough for any real record, bounded for hostile ones. */
export const SEARCH_TEXT_LIMIT = 20_000

/** The text a product is found by, by weight: its name, its category, and what it does and is for. */
export interface SearchFields {
  readonly name: string
  readonly category: string
  readonly body: string
}

export const searchFieldsOf = (content: ProductContent): SearchFields => ({
  name: content.name,
  category: content.category,
  body: [
    content.ai_summary,
    ...content.key_features,
    ...content.ai_features,
    ...content.recommended_for,
    ...content.ai_optimization.use_cases
  ]
    .join(" ")
    .slice(0, SEARCH_TEXT_LIMIT)
})

/** Relevance as both stores round it (a cursor carries it and must compare equal). */
export const roundRank = (rank: number): number => Math.round(rank * 1e6) / 1e6
