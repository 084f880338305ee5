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

/** The English words, read once a process: 274,000 of them, a few megabytes, the same for every server it starts. */
let englishWords: ReadonlySet<string> | undefined
const english = Effect.sync(() => {
  englishWords ??= new Set(readFileSync(englishWordsPath, "utf8").split("\n"))
  return englishWords
})

/** The shipped vocabulary with the operator's files over it, in the order given. */
export const loadVocabulary = (operatorFiles: ReadonlyArray<string>): Effect.Effect<Vocabulary, VocabularyUnreadable> =>
  Effect.gen(function* () {
    const files = yield* Effect.forEach([shippedPath, ...operatorFiles], readFile)
    return makeVocabulary(files, yield* english)
  })
