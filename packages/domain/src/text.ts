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

export const isStorableText = Schema.isPattern(STORABLE, {
  message: "must not contain control characters (such as NUL or bidirectional overrides) or broken Unicode"
})

/** True for text that passes `isStorableText`. */
export const isStorable = (text: string): boolean => STORABLE.test(text)

/** A string of at most `max` characters that passes `isStorableText`. */
export const boundedText = (max: number) =>
  Schema.String.check(Schema.isMaxLength(max, { message: `must be at most ${max} characters` }), isStorableText)
