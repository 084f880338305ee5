/**
 * The vocabulary search reads requests by (docs/search.md, "Reading a request"): the shipped file
 * (@productdir/domain's data/search-vocabulary.json), the operator's files over it (SEARCH_VOCABULARY), and a
 * list of English words (`word-list`), so that a real word ("slack", "chat") is never read as a typo of a catalog
 * word. Read once at start; a file that cannot be read or does not have the vocabulary's shape stops the start
 * with a message naming the file and what is wrong in it.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { Effect, Schema } from "effect"
import englishWordsPath from "word-list"
import { makeVocabulary, type Vocabulary, VocabularyFile } from "@productdir/domain"

export class VocabularyUnreadable extends Schema.TaggedError<VocabularyUnreadable>()("VocabularyUnreadable", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `SEARCH_VOCABULARY: ${this.path}: ${this.reason}`
  }
}

const shippedPath = createRequire(import.meta.url).resolve("@productdir/domain/search-vocabulary.json")
const decode = Schema.decodeUnknownResult(Schema.fromJsonString(VocabularyFile))

const readFile = (path: string) =>
  Effect.try({
    try: () => readFileSync(path, "utf8"),
    catch: (cause) => new VocabularyUnreadable({ path, reason: cause instanceof Error ? cause.message : String(cause) })
  }).pipe(
    Effect.flatMap((text) => Effect.fromResult(decode(text))),
    Effect.mapError((e) => (e instanceof VocabularyUnreadable ? e : new VocabularyUnreadable({ path, reason: e.message })))
  )

/**
 * The English words, read once a process: 274,000 of them, kept as the file's one string and where each line starts
 * (a typed array), looked up by binary search. As a Set of strings they took some 20 MB of a heap capped at 176 MB.
 */
let englishWords: { readonly has: (word: string) => boolean } | undefined
const english = Effect.sync(() => {
  englishWords ??= sortedLines(readFileSync(englishWordsPath, "utf8"))
  return englishWords
})

/** Membership in a text's lines, sorted by code unit here (the file is not: `manlily` comes before `manlihood`). */
const sortedLines = (file: string) => {
  const lines = file
    .split("\n")
    .filter((line) => line.length > 0)
    .sort()
  const text = lines.join("\n")
  const n = lines.length
  const starts = new Int32Array(n + 1)
  for (let i = 0, at = 0; i <= n; i++) {
    starts[i] = at
    at += (lines[i]?.length ?? 0) + 1
  }
  const lineAt = (i: number) => text.slice(starts[i]!, starts[i + 1]! - 1)
  return {
    has: (word: string) => {
      let lo = 0
      let hi = n - 1
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1
        const line = lineAt(mid)
        if (line === word) return true
        if (line < word) lo = mid + 1
        else hi = mid - 1
      }
      return false
    }
  }
}

/** The shipped vocabulary with the operator's files over it, in the order given. */
export const loadVocabulary = (operatorFiles: ReadonlyArray<string>): Effect.Effect<Vocabulary, VocabularyUnreadable> =>
  Effect.gen(function* () {
    const files = yield* Effect.forEach([shippedPath, ...operatorFiles], readFile)
    return makeVocabulary(files, yield* english)
  })
