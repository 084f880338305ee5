/**
 * Text that cannot hide (docs/threat-model.md, "Agents as readers"): every text a user writes (a reason, an agent's
 * name and contact, an imported record) loses the characters a reader does not see but a language model reads, or
 * that make text read otherwise than it holds (UTS #55; "Trojan Source", CVE-2021-42574):
 *
 * - Unicode tag characters (U+E0000–U+E007F): invisible ASCII. "Works fine" followed by a hidden instruction in tags
 *   is read by a model in full. Kept only as what they are for: the tag sequence of a subdivision flag (🏴 + tags + the
 *   cancel tag: England, Scotland, Wales).
 * - Format characters (Cf): zero-width spaces and joiners, word joiners, the byte-order mark, soft hyphens, the
 *   direction marks (U+200E, U+200F, U+061C) and the embedding, override and isolate controls. A zero-width joiner is
 *   kept inside an emoji sequence (👩‍💻) and between two letters of a script that joins (Arabic, the Indic scripts),
 *   where it and the non-joiner shape a word; the Arabic number signs and other visible format characters are kept.
 * - Variation selectors outside emoji (text or emoji presentation after a character that has both stays).
 * - Private-use characters: no meaning anyone agreed on.
 * - Other default-ignorable code points (the Hangul fillers, the combining grapheme joiner, …).
 *
 * Removed, not refused: a reason pasted from a web page often carries a stray mark, and the rest of it is what the
 * voter meant to say. Text made of nothing else is then blank, and refused as blank (text.ts, isVisibleText).
 */

/** Format characters a reader sees: the Arabic number signs and their kin (prepended concatenation marks). */
const VISIBLE_FORMAT = /[\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u{110BD}\u{110CD}]/u

/** A character that may stand either side of a joiner in an emoji sequence. */
const EMOJI_PART = /^(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u{FE0F}|\u20E3)$/u

/** A letter or mark of a script whose words are shaped by joiners (not Latin, Greek or Cyrillic, and not Common). */
const JOINING_LETTER = /^(?![\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}])[\p{L}\p{M}]$/u

/** A character that has a text and an emoji presentation a variation selector chooses between. */
const EMOJI_CAPABLE = /[\p{Emoji}\p{Extended_Pictographic}]/u

const HIDDEN = /[\p{Cf}\p{Co}\p{Default_Ignorable_Code_Point}]/u

/** A subdivision flag: the black flag, tag letters and digits, the cancel tag (a capture: `split` keeps it). */
const FLAG_TAGS = /(\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,6}\u{E007F})/u

/** `text` without the characters a reader cannot see (see above); text without any is returned as it is. */
export const withoutHiddenCharacters = (text: string): string => {
  if (!HIDDEN.test(text)) return text
  // Flags are the only place tags are kept: split around them, odd parts are flags.
  return text
    .split(FLAG_TAGS)
    .map((part, i) => (i % 2 === 1 ? part : withoutHiddenIn(part)))
    .join("")
}

const withoutHiddenIn = (text: string): string => {
  const characters = Array.from(text)
  let out = ""
  for (let i = 0; i < characters.length; i++) {
    const c = characters[i]!
    if (!HIDDEN.test(c) || VISIBLE_FORMAT.test(c)) {
      out += c
      continue
    }
    const before = characters[i - 1] ?? ""
    const after = characters[i + 1] ?? ""
    if (c === "\u200D" && EMOJI_PART.test(before) && EMOJI_PART.test(after)) out += c
    else if ((c === "\u200D" || c === "\u200C") && JOINING_LETTER.test(before) && JOINING_LETTER.test(after)) out += c
    else if ((c === "\uFE0E" || c === "\uFE0F") && EMOJI_CAPABLE.test(before)) out += c
  }
  return out
}

/**
 * `value` with `withoutHiddenCharacters` applied to every string in it, however deep (a record's content: its name,
 * its statements, its plans' features); anything else is kept as it is.
 */
export const withoutHiddenCharactersIn = <A>(value: A): A => cleanValue(value) as A

const cleanValue = (value: unknown): unknown => {
  if (typeof value === "string") return withoutHiddenCharacters(value)
  if (Array.isArray(value)) return value.map(cleanValue)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, cleanValue(field)]))
  }
  return value
}
