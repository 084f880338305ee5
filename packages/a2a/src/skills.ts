/**
 * The card's four skills over A2A: what a message asks (a data part naming a
 * skill, or plain words), and the answer, made by the same use cases as the
 * HTTP API and the MCP tools (search, the cached decision view, problems, the
 * vote with its identity and limits). Nothing is re-implemented here: a vote
 * through A2A is a POST /vote with another envelope.
 */
import { Effect, Schema } from "effect"
import {
  type AgentView,
  type Caster,
  canonicalRef,
  isProductRef,
  type ProblemList,
  type ProductPage,
  slugify,
  type VoteOutcome,
  VoteRequest
} from "@productdir/domain"
import { fieldName, GetProblems, GetProduct, SearchProducts } from "@productdir/contract"
import { Directory } from "@productdir/usecases"
import { makeCachedDocument } from "@productdir/read-cache/cachedReads"
import { RETRY_AFTER_UNAVAILABLE } from "@productdir/edge/problems/problemResponses"
import { problemsProse } from "@productdir/edge/reportProse"
import { absoluteLinks } from "@productdir/edge/links"
import { type Door, refusals, refusingAt } from "@productdir/edge/refusals"
import { A2aError, invalidParams, type Message, violationsOf } from "./protocol.ts"

/** How an agent does, over A2A, what a refusal tells it to. */
export const A2A_DOOR: Door = {
  search: "a message in plain words (the search skill)",
  register: "POST /agents over HTTP, then send Authorization: Bearer <api_key> with your A2A requests"
}

export const SKILLS = ["search", "read-product", "read-problems", "vote"] as const
export type Skill = (typeof SKILLS)[number]

type SearchQuery = typeof SearchProducts.parametersSchema.Type
type ProblemsQuery = typeof GetProblems.parametersSchema.Type

/** What a message asks, decoded. */
export type Ask =
  | { readonly skill: "search"; readonly query: SearchQuery }
  | { readonly skill: "read-product"; readonly entity_id: string }
  | { readonly skill: "read-problems"; readonly query: ProblemsQuery }
  | { readonly skill: "vote"; readonly ballot: VoteRequest }

/** A skill's answer: one line to read, and the document it is about (links absolute). */
export interface Answer {
  readonly skill: Skill
  readonly text: string
  readonly data: unknown
}

type Path = ReadonlyArray<string | number>

const strict = { errors: "all", onExcessProperty: "error" } as const

/** The arguments of each skill: the MCP tools' and POST /vote's own schemas, so the rules are the same. */
const decodeArgs = (skill: Skill, args: unknown) => {
  switch (skill) {
    case "search":
      return Effect.map(Schema.decodeUnknownEffect(SearchProducts.parametersSchema)(args, strict), (query): Ask => ({ skill, query }))
    case "read-product":
      return Effect.map(
        Schema.decodeUnknownEffect(GetProduct.parametersSchema)(args, strict),
        (a): Ask => ({ skill, entity_id: a.entity_id })
      )
    case "read-problems":
      return Effect.map(Schema.decodeUnknownEffect(GetProblems.parametersSchema)(args, strict), (query): Ask => ({ skill, query }))
    case "vote":
      return Effect.map(Schema.decodeUnknownEffect(VoteRequest)(args, strict), (ballot): Ask => ({ skill, ballot }))
  }
}

const isSkill = (value: unknown): value is Skill => typeof value === "string" && (SKILLS as ReadonlyArray<string>).includes(value)

/** A data part: `{"skill": …, …its arguments}`; every wrong field is named under the part's path. */
const fromData = (data: unknown, at: Path): Effect.Effect<Ask, A2aError> => {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return Effect.fail(
      invalidParams([{ path: at, message: `must be an object naming a skill: {"skill": "${SKILLS.join('" | "')}", …its arguments}` }])
    )
  }
  const { skill, ...args } = data as Record<string, unknown>
  if (!isSkill(skill)) {
    return Effect.fail(
      invalidParams([
        {
          path: [...at, "skill"],
          message: `must be one of "${SKILLS.join('", "')}"${skill === undefined ? " (a data part names the skill it asks for)" : ""}`
        }
      ])
    )
  }
  return decodeArgs(skill, args).pipe(Effect.mapError((error) => invalidParams(violationsOf(error.issue, at, args))))
}

// ---- plain words --------------------------------------------------------------

const VOTE = /^(?:please\s+)?(?:vote\s+(up|down)|(up|down)[- ]?vote)\s+(?:for\s+|on\s+)?(.+?)(?:\s*[:;—–]\s*(.*)|\s+because\s+(.*))?$/isu
const PROBLEMS = /^(?:what\s+are\s+the\s+)?(?:known\s+)?problems?\s*(?::|\s(?:of|with|for|in))\s*(.+?)\s*\??$/isu
const READ = /^(?:tell\s+me\s+about|read|show(?:\s+me)?|describe|about|view|product)\s*:?\s+(.+?)\s*\??$/isu
const SEARCH = /^(?:search(?:\s+for)?|find(?:\s+me)?|look\s+for|looking\s+for|i\s+need)\s*:?\s+(.+)$/isu

const CLOSING = new Set([..."\"'“”‘’.!?"])

/**
 * How a product is named in words: its slug or id as is, else its name (the slug the name makes). Closing
 * quotes and punctuation are cut by a walk from the end: a pattern anchored at the end would retry every place
 * of a long run of dots, quadratic in it.
 */
const refOf = (named: string): string => {
  const trimmed = named.trim().replace(/^["'“”‘’]+/u, "")
  let end = trimmed.length
  while (end > 0 && CLOSING.has(trimmed[end - 1]!)) end--
  const ref = trimmed.slice(0, end)
  return isProductRef(ref) ? canonicalRef(ref) : slugify(ref)
}

/** Arguments read from words, decoded as a data part's would be; a wrong one is named against the text. */
const fromWords = (skill: Skill, args: Record<string, unknown>, at: Path): Effect.Effect<Ask, A2aError> =>
  decodeArgs(skill, args).pipe(
    Effect.mapError((error) =>
      invalidParams(
        violationsOf(error.issue).map((e) => ({ path: at, message: `asks the ${skill} skill, whose ${fieldName(e.path)} ${e.message}` }))
      )
    )
  )

/**
 * Plain words: "vote up <product>", "vote down <product>: <problem>", "problems of <product>",
 * "tell me about <product>", "search <words>"; otherwise a product's name, slug or id reads its
 * view, and any other words are a search.
 */
const fromText = (sent: string, at: Path) =>
  Effect.gen(function* () {
    // Runs of white space made one space first (a reason is kept so anyway): the patterns' \s* after a lazy
    // name would retry every place of a long run, quadratic in it.
    const text = sent.replace(/\s+/gu, " ").trim()
    const vote = VOTE.exec(text)
    if (vote !== null) {
      const reason = (vote[4] ?? vote[5])?.trim()
      return yield* fromWords(
        "vote",
        {
          entity_id: refOf(vote[3]!),
          direction: (vote[1] ?? vote[2])!.toLowerCase(),
          ...(reason === undefined || reason === "" ? {} : { reason })
        },
        at
      )
    }
    const problems = PROBLEMS.exec(text)
    if (problems !== null) return yield* fromWords("read-problems", { entity_id: refOf(problems[1]!) }, at)
    const read = READ.exec(text)
    if (read !== null) return yield* fromWords("read-product", { entity_id: refOf(read[1]!) }, at)
    const search = SEARCH.exec(text)
    if (search !== null) return yield* fromWords("search", { q: search[1]!.trim() }, at)
    // A product named: its view, when the directory has it; any other words: a search.
    const ref = refOf(text)
    if (text.length <= 120) {
      const directory = yield* Directory.Directory
      const found = yield* directory
        .product(ref)
        .pipe(
          Effect.as(true),
          Effect.catchTags({ ProductNotFound: () => Effect.succeed(false), ProductRemoved: () => Effect.succeed(true) }),
          Effect.catchTag("StoreError", unavailable)
        )
      if (found) return { skill: "read-product", entity_id: ref } satisfies Ask
    }
    return yield* fromWords("search", { q: text }, at)
  })

/** Where a message's parts are in the request as sent: 1.0's and 0.3's JSON-RPC `parts`, 0.3's HTTP+JSON `content`. */
export interface PartPaths {
  readonly parts: Path
  readonly part: (i: number) => Path
  readonly data: (i: number) => Path
  readonly text: (i: number) => Path
}

export const PARTS: PartPaths = {
  parts: ["message", "parts"],
  part: (i) => ["message", "parts", i],
  data: (i) => ["message", "parts", i, "data"],
  text: (i) => ["message", "parts", i, "text"]
}

/** What the message asks: its one data part, else its text parts read as plain words. */
export const interpret = (message: Message, paths: PartPaths = PARTS) =>
  Effect.gen(function* () {
    // A part is one of text, raw, url and data (A2A 1.0 §4.1.6): one that carries two would be read as either.
    const mixed = message.parts.flatMap((part, i) =>
      [part.text, part.raw, part.url, part.data].filter((content) => content !== undefined && content !== null).length > 1 ? [i] : []
    )
    if (mixed.length > 0) {
      return yield* invalidParams(
        mixed.map((i) => ({ path: paths.part(i), message: "carries more than one of text, raw, url and data: a part is one of them" }))
      )
    }
    const files = message.parts.flatMap((part, i) => (part.url !== undefined || part.raw !== undefined ? [i] : []))
    if (files.length > 0) {
      return yield* new A2aError({
        kind: "ContentTypeNotSupported",
        message: `This agent reads text and JSON data parts; a file is not taken (${files.map((i) => fieldName(paths.part(i))).join(", ")}).`
      })
    }
    const data = message.parts.flatMap((part, i) => (part.data !== undefined ? [{ data: part.data, i }] : []))
    if (data.length > 1) {
      return yield* invalidParams(
        data.slice(1).map(({ i }) => ({ path: paths.data(i), message: "is a second request: send one data part per message" }))
      )
    }
    if (data.length === 1) return yield* fromData(data[0]!.data, paths.data(data[0]!.i))
    const texts = message.parts.flatMap((part, i) =>
      part.text !== undefined && part.text.trim() !== "" ? [{ text: part.text.trim(), i }] : []
    )
    if (texts.length === 0) {
      return yield* invalidParams([
        {
          path: paths.parts,
          message: `must hold a text part with your request in plain words, or a data part naming a skill ({"skill": "${SKILLS.join('" | "')}", …})`
        }
      ])
    }
    return yield* fromText(texts.map((t) => t.text).join(" "), paths.text(texts[0]!.i))
  })

// ---- the answers ----------------------------------------------------------------

// How A2A answers each kind of refusal (../refusals.ts says what each is, in its words). A2A has no "gone": a product
// removed is not found, in its own words.
const a2a = refusingAt(A2A_DOOR, {
  notFound: (refused) => Effect.fail(new A2aError({ kind: "ProductNotFound", message: refused.detail })),
  gone: (refused) => Effect.fail(new A2aError({ kind: "ProductNotFound", message: refused.detail })),
  invalid: (refused) =>
    Effect.fail(
      new A2aError({
        kind: "InvalidParams",
        message: refused.detail,
        violations: refused.fields.map((f) => ({ field: f.name, description: f.message }))
      })
    ),
  unavailable: (refused) =>
    Effect.fail(
      new A2aError({ kind: "Unavailable", message: refused.detail, headers: { "retry-after": String(RETRY_AFTER_UNAVAILABLE) } })
    ),
  revoked: (refused) =>
    Effect.fail(
      new A2aError({
        kind: "Unauthenticated",
        message: refused.detail,
        headers: { "www-authenticate": `Bearer realm="productdir", error="invalid_token", error_description="This agent is revoked"` }
      })
    )
})
const badCursor = a2a.InvalidCursor
export const unavailable = a2a.StoreError
const revoked = a2a.AgentRevoked
const readProblems = { ProductNotFound: a2a.ProductNotFound, ProductRemoved: a2a.ProductRemoved, StoreError: a2a.StoreError } as const

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

const searchText = (query: SearchQuery, page: ProductPage) => {
  const asked = query.q !== undefined ? ` for "${query.q}"` : query.category !== undefined ? ` in ${query.category}` : ""
  // A relevance search says whether anything answers the request (page.search): the reply says it first.
  const reading = page.search
  if (page.items.length === 0) return reading?.answer ?? `No product matches${asked}. Try fewer or other words.`
  const listed = page.items
    .map((p) => `${p.name} (trust: ${p.trust.summary}${p.match === undefined ? "" : `; ${p.match.quality} match`})`)
    .join("; ")
  const verdict = reading === undefined ? "" : ` ${reading.answer}`
  const more = page.next_cursor === null ? "" : ` More with {"skill":"search", …the same, "cursor":"${page.next_cursor}"}.`
  return `${plural(page.items.length, "product")}${asked}: ${listed}.${verdict}${more}`
}

const viewText = (view: AgentView) =>
  `${view.name} (${view.category}): ${view.description} Trust: ${view.trust.summary}. ${plural(view.problems.total, "known problem")}.`

// Voters' words only as quotes introduced as reports (packages/edge/src/reportProse.ts): never in the directory's own sentences.
const problemsText = (list: ProblemList) => problemsProse(list.entity.name, list.problems, list.total)

const voteText = (outcome: VoteOutcome) => {
  const what = { recorded: "recorded", unchanged: "already recorded: nothing changed", changed: "moved to this direction" }[outcome.status]
  const counting = { counted: "it counts now", held: "it is held until the integrity pass", discounted: "it is recorded but not counted" }[
    outcome.counting
  ]
  return `Your ${outcome.direction} vote was ${what}, for your ${outcome.counted_as === "agent" ? "agent" : "network address"}; ${counting}. It weighs ${outcome.weight} of a vote in the judgement (your standing when you cast it). Trust now: ${outcome.trust.summary} (${outcome.trust.trust_up} up, ${outcome.trust.trust_down} down).`
}

/** The four skills, answered by the use cases; links come back absolute under `base`. */
export const makeSkills = Effect.gen(function* () {
  const directory = yield* Directory.Directory
  const cached = yield* makeCachedDocument
  return (ask: Ask, base: string | undefined, caster: Effect.Effect<Caster, A2aError>): Effect.Effect<Answer, A2aError> => {
    switch (ask.skill) {
      case "search":
        return directory.search(ask.query).pipe(
          Effect.catchTags({ InvalidCursor: badCursor, StoreError: unavailable }),
          Effect.map((page) => ({ skill: ask.skill, text: searchText(ask.query, page), data: absoluteLinks(page, base) }))
        )
      case "read-product":
        // The prepared view HTTP and MCP serve: a product read through any door is loaded once.
        return cached("view", ask.entity_id).pipe(
          Effect.catchTags(readProblems),
          Effect.map((view) => ({ skill: ask.skill, text: viewText(view as AgentView), data: absoluteLinks(view, base) }))
        )
      case "read-problems": {
        const { entity_id, ...page } = ask.query
        return directory.problems(entity_id, page).pipe(
          Effect.catchTags({ ...readProblems, InvalidCursor: badCursor }),
          Effect.map((list) => ({ skill: ask.skill, text: problemsText(list), data: absoluteLinks(list, base) }))
        )
      }
      case "vote":
        return Effect.gen(function* () {
          const result = yield* directory.vote(ask.ballot, yield* caster).pipe(Effect.catchTags({ ...readProblems, AgentRevoked: revoked }))
          if (result._tag === "Limited") {
            const { decision } = result
            return yield* new A2aError({
              kind: "RateLimited",
              message: refusals.RateLimited("Vote", decision, A2A_DOOR),
              headers: {
                "retry-after": String(decision.retryAfterSeconds),
                "ratelimit-limit": String(decision.limit),
                "ratelimit-remaining": "0",
                "ratelimit-reset": String(decision.resetSeconds)
              }
            })
          }
          return { skill: ask.skill, text: voteText(result.outcome), data: absoluteLinks(result.outcome, base) }
        })
    }
  }
})
