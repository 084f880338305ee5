/**
 * What a report says, apart from how it says it (docs/api.md, "Problems"): reports that say the same thing count
 * together, whatever their word order, punctuation, negation or look-alike letters. "No SAML login", "SAML login
 * missing" and "saml-login: not supported!" are one problem; the first reporter's words do not own it.
 *
 * A report's meaning is the set of English stems of its content words: its words as search reads them (folded
 * accents and cases, look-alike letters read as their prototypes), less stop words and the words every complaint
 * uses ("no", "missing", "doesn't", "support"), each stemmed (`invoicing` is `invoic`). The directory's label for a
 * problem is the content words of its most common phrasing: words of the voters', shared by every report under it,
 * in plain lower case, without punctuation, links or markup.
 */
import { stem } from "porter2"
import { withPrototypes } from "./lookAlikes.ts"
import { ENGLISH_STOP_WORDS, foldAccents } from "../record/search.ts"

/** Words that say a product falls short, not where: every report has one, so no two reports are apart by them. */
const COMPLAINT_WORDS: ReadonlySet<string> = new Set(
  (
    "no not none never without missing lack lacks lacking lacked absent unsupported support supports supported " +
    "available unavailable doesn don isn aren wasn weren won can cannot couldn didn hasn haven shouldn wouldn"
  ).split(" ")
)

/** At most this many words make a label. */
export const LABEL_WORDS = 8

/** The content words of `text`, in its order: what is left of its words when stop and complaint words are gone. */
const contentWords = (text: string): ReadonlyArray<string> =>
  foldAccents(withPrototypes(text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S*/giu, " ")).toLowerCase())
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && !ENGLISH_STOP_WORDS.has(word) && !COMPLAINT_WORDS.has(word))

/**
 * The meaning of a report: its content stems, unique and sorted, space-separated. Empty when it has none ("Not
 * supported"): such a report is counted by its own normalised text.
 */
export const meaningOf = (text: string): string => [...new Set(contentWords(text).map((word) => stem(word)))].sort().join(" ")

/** The stems of a meaning. */
export const stemsOf = (meaning: string): ReadonlyArray<string> => (meaning.length === 0 ? [] : meaning.split(" "))

/**
 * Whether a report of meaning `report` says what the catalog's limitation of meaning `limitation` says: the same
 * stems, or (for a report of two stems or more) only stems the limitation has: "No SAML login" is the catalog's
 * "Teams that need SAML login".
 */
export const saysLimitation = (report: string, limitation: string): boolean => {
  if (report.length === 0 || limitation.length === 0) return false
  if (report === limitation) return true
  const stems = stemsOf(report)
  if (stems.length < 2) return false
  const has = new Set(stemsOf(limitation))
  return stems.every((s) => has.has(s))
}

/** The directory's label for a problem from its most common phrasing: its content words, lower case, unique. */
export const labelOf = (phrasing: string): string => [...new Set(contentWords(phrasing))].slice(0, LABEL_WORDS).join(" ")
