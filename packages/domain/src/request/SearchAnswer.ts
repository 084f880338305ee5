/** What a search answer tells beside its products (docs/api.md, "Reading a search answer"). */
import { Schema } from "effect"

export const MatchQuality = Schema.Literals(["strong", "partial", "weak"]).annotate({
  description:
    "`strong`: the product has most of what the request asks for, in what it does, and meets its required constraints; `partial`: some of it; `weak`: little (kept only when nothing matches better)"
})
export type MatchQuality = typeof MatchQuality.Type

const Labels = Schema.Array(Schema.String)

export const SearchMatch = Schema.Struct({
  score: Schema.Number.annotate({
    description: "How well the product matches the request, from 0 to 1: comparable within one answer, not across answers"
  }),
  quality: MatchQuality,
  matched: Labels.annotate({ description: "The request's concepts the product has" }),
  missing: Labels.annotate({ description: "The request's concepts it lacks" }),
  not_for: Labels.annotate({ description: "The request's concepts its record says it is not recommended for" }),
  constraints: Schema.Struct({
    met: Labels.annotate({ description: "The request's price and plan constraints it meets" }),
    unmet: Labels.annotate({ description: "Those it does not meet" })
  })
}).annotate({ identifier: "SearchMatch", description: "How this result matches the request (relevance searches only)" })
export type SearchMatch = typeof SearchMatch.Type

export const SearchReading = Schema.Struct({
  strong: Schema.Boolean.annotate({
    description: "Whether any result is a strong match. False: the catalog has nothing that answers the whole request"
  }),
  answer: Schema.String.annotate({ description: "One sentence: what was found, or why nothing was" }),
  concepts: Labels.annotate({ description: "What the request was read as asking for" }),
  unmatched: Labels.annotate({ description: "Concepts of the request that no product matched" }),
  corrections: Schema.Array(
    Schema.Struct({ word: Schema.String, read_as: Schema.String }).annotate({ identifier: "SearchCorrection" })
  ).annotate({ description: "Words read as a misspelling of a word the catalog has" }),
  ignored: Labels.annotate({ description: "Words left out as phrasing or too common to mean anything" }),
  constraints: Labels.annotate({ description: "The price and plan constraints read from the request" }),
  alternative_to: Schema.optionalKey(
    Schema.Struct({
      name: Schema.String.annotate({ description: "The product the request compares against, as written" }),
      in_catalog: Schema.Boolean,
      read_as: Schema.String.annotate({ description: "What was searched for in its place" })
    }).annotate({ identifier: "SearchAlternative" })
  )
}).annotate({
  identifier: "SearchReading",
  description: "How a relevance search read its request and whether anything answers it"
})
export type SearchReading = typeof SearchReading.Type
