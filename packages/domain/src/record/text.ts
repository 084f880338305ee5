/**
 * Text the service accepts: what PostgreSQL can store and what a client can
 * show. NUL and unpaired surrogates are text PostgreSQL refuses (a request
 * carrying them would fail in the store instead of at the door); other control
 * characters (tab and line breaks aside) serve no client; and the bidirectional
 * embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069) make
 * text read differently from what it holds ("Trojan Source"): a name or a
 * reason that shows one thing and says another. Right-to-left scripts need none
 * of them. Every string a client or an import sends is checked with this, so bad
 * input is a 400 or a rejected record naming the field, decided before any
 * store is asked.
 */
import { Schema } from "effect"

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this rule's purpose.
const STORABLE = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u202A-\u202E\u2066-\u2069\p{Cs}]*$/u

/**
 * The pattern a JSON Schema of this text says: STORABLE without `\p{Cs}` (unpaired surrogates). JSON Schema's
 * portable subset of regular expressions has no `\p{…}`, and validators outside JavaScript refuse it (Python's
 * `re`: the Python MCP SDK checks each tool's result against its output schema, and failed every call of a tool
 * whose schema carried it). A text with an unpaired surrogate (possible in JSON only as an escape) is still
 * refused here, by the check itself, naming the field.
 */
const PORTABLE = STORABLE.source.replace("\\p{Cs}", "")

export const isStorableText = Schema.isPattern(STORABLE, {
  message: "must not contain control characters (such as NUL or bidirectional overrides) or broken Unicode",
  toJsonSchema: () => ({ pattern: PORTABLE })
})

/** True for text that passes `isStorableText`. */
export const isStorable = (text: string): boolean => STORABLE.test(text)

/**
 * A character a reader sees: not white space, not a control or format character, not a combining mark
 * alone, not one with no visible form (zero-width spaces and joiners, the Hangul filler, variation
 * selectors: Unicode's default-ignorable code points), not a private-use character (hiddenText.ts removes them),
 * not the blank Braille pattern.
 */
const VISIBLE = /[^\s\p{Z}\p{Cc}\p{Cf}\p{Co}\p{M}\p{Default_Ignorable_Code_Point}\u2800]/u

/** Text a reader sees something of: "   ", "\u200b" and "\u3164" are as blank as "". */
export const isVisibleText = Schema.makeFilter((s: string) => VISIBLE.test(s) || "must not be blank (spaces or invisible characters only)")

/** Characters as people and JSON Schema count them: code points, so an emoji is one, not two UTF-16 units. */
export const characterCount = (text: string): number => {
  let count = text.length
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    // A high surrogate followed by a low one is one character (unpaired ones are refused by isStorableText).
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--
        i++
      }
    }
  }
  return count
}

/**
 * At most `max` characters, counted as `maxLength` in the OpenAPI document counts them (code points: JSON
 * Schema's definition, and PostgreSQL's `length`): Schema.isMaxLength counts UTF-16 units, which would refuse
 * 150 emoji as more than 280 characters where every JSON Schema validator accepts them.
 */
export const isAtMostCharacters = (max: number) =>
  Schema.makeFilter(
    // No more units than the limit is within it, whatever they are; the count is needed only past that.
    (text: string) => text.length <= max || characterCount(text) <= max || `must be at most ${max} characters`,
    {
      expected: `at most ${max} characters`,
      toJsonSchema: ({ type }) => (type === "string" ? [{ maxLength: max }, true] : [{}, true])
    }
  )

/** A string of at most `max` characters that passes `isStorableText`. */
export const boundedText = (max: number) => Schema.String.check(isAtMostCharacters(max), isStorableText)
