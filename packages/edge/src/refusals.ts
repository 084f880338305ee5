/**
 * What an agent is told when the directory refuses it, in one table, whichever door it came through:
 * the HTTP problems (packages/http/src/domainProblems.ts, problems/rateLimits.ts), the MCP tools and the MCP resources
 * (mcp/), the A2A skills (a2a/). A sentence that says what happened, then what to do; the door only says
 * how to do it (`GET /products?q=<words>` over HTTP, `search_products` over MCP).
 *
 * Each failure of the domain a door meets is refused once here (`REFUSALS`): its kind and its words. A door
 * says once how it answers each kind (`refusingAt`): HTTP with its problem, MCP with a tool error, A2A with
 * its error; so a product removed is "gone" at every door, in the same words.
 */
import type { Effect } from "effect"
import {
  type AgentRevoked,
  describeLimit,
  type InvalidCursor,
  type ProductNotFound,
  type ProductRemoved,
  type StoreError,
  type VersionNotFound
} from "@productdir/domain"

/** How an agent does what a refusal tells it to, at one door. */
export interface Door {
  /** How to find products. */
  readonly search: string
  /** How to register an agent and vote with its key. */
  readonly register: string
}

export const HTTP_DOOR: Door = { search: "GET /products?q=<words>", register: "POST /agents, then send Authorization: Bearer <api_key>" }
export const MCP_DOOR: Door = {
  search: "search_products",
  register: "POST /agents over HTTP, then send Authorization: Bearer <api_key> with your /mcp requests"
}

/** A rate limit that refused: what was limited, and the bucket's figures. */
export interface Limited {
  readonly limit: number
  readonly windowSeconds: number
  readonly retryAfterSeconds: number
  /** The bucket that was empty: a network's budget names its level (Directory.ts, Agents.ts). */
  readonly key?: string | undefined
}

const LEVEL_NAMES: Record<string, string> = {
  "v6/64": "IPv6 /64",
  "v6/56": "IPv6 /56",
  "v6/48": "IPv6 /48",
  "v6/32": "IPv6 /32",
  "v4/32": "IPv4 address",
  "v4/24": "IPv4 /24",
  "v4/16": "IPv4 /16"
}

/** A network level (`v6/48`) as a sentence names it ("IPv6 /48"). */
export const levelName = (level: string): string => LEVEL_NAMES[level] ?? level

/**
 * A network budget's kind and level, from its bucket's key (`anon:<product>:<level>:<network>`,
 * `register:<level>:<network>`, `fetch:<level>:<network>`).
 */
const budgetOf = (key: string | undefined) => {
  const match = key === undefined ? null : /^(anon:[^:]+|register|fetch):(v[46]\/\d+):/u.exec(key)
  const level = match === null ? undefined : LEVEL_NAMES[match[2]!]
  if (match === null || level === undefined) return undefined
  const kind = match[1]!.startsWith("anon:") ? "votes" : match[1] === "fetch" ? "fetches" : "registrations"
  return { kind, level }
}

export const refusals = {
  ProductNotFound: (error: ProductNotFound, door: Door) =>
    `No product has the id or slug "${error.ref}". Find products with ${door.search}.`,
  ProductRemoved: (error: ProductRemoved) => `${error.message}. Its votes are kept; choose another product.`,
  InvalidCursor: (error: InvalidCursor) => `${error.message}. Start again without a cursor.`,
  VersionNotFound: (error: VersionNotFound) => `${error.message}. Its list of versions names every one kept.`,
  StoreError: (_: StoreError) => "The directory's store is unavailable right now. Retry shortly.",
  AgentRevoked: (_: AgentRevoked) => "This agent is revoked: its votes do not count.",
  /** `what`: "Vote", "Agent registration", "New agent (…)". A network's budget says which network, and what to do instead. */
  RateLimited: (what: string, limited: Limited, door: Door) => {
    const budget = budgetOf(limited.key)
    const figures = describeLimit(limited.limit, limited.windowSeconds)
    const retry = `Retry after ${limited.retryAfterSeconds} s.`
    if (budget?.kind === "votes") {
      return `Votes without an agent key on this product from your network (${budget.level}) reached their budget (${figures}): a network counts as one neighbourhood, however many addresses it holds. Register an agent once (${door.register}): an agent's votes are not drawn from its network's budget. ${retry}`
    }
    if (budget?.kind === "fetches") {
      return `Key directory fetch rate limit reached for your network (${budget.level}: ${figures}): a signature naming a key directory this service has not fetched lately makes it fetch one, and a network counts as one neighbourhood, however many addresses it holds. A directory already fetched costs nothing until it expires. ${retry}`
    }
    if (budget?.kind === "registrations") {
      return `${what} rate limit reached for your network (${budget.level}: ${figures}). Register once and keep the key. ${retry}`
    }
    return `${what} rate limit reached (${figures}). ${retry}`
  },
  /** A signed agent's first vote is a new identity: it draws on the network's registrations. */
  NEW_SIGNED_AGENT: "New agent (a signed agent's first vote counts as a registration)"
} as const

/** What kind of refusal a failure is, whatever door says it. */
export type RefusalKind = "notFound" | "gone" | "invalid" | "unavailable" | "revoked"

export interface Refusal<K extends RefusalKind = RefusalKind> {
  readonly kind: K
  /** What happened, then what to do. */
  readonly detail: string
  /** An invalid request's wrong fields (a query parameter's name), and what is wrong with each. */
  readonly fields: ReadonlyArray<{ readonly name: string; readonly message: string }>
}

const refusal = <K extends RefusalKind>(kind: K, detail: string, fields: Refusal["fields"] = []): Refusal<K> => ({ kind, detail, fields })

/** The domain's failures a door meets, each refused once: its kind and its words. */
export const REFUSALS = {
  ProductNotFound: (error: ProductNotFound, door: Door) => refusal("notFound", refusals.ProductNotFound(error, door)),
  ProductRemoved: (error: ProductRemoved, _door: Door) => refusal("gone", refusals.ProductRemoved(error)),
  VersionNotFound: (error: VersionNotFound, _door: Door) => refusal("notFound", refusals.VersionNotFound(error)),
  InvalidCursor: (error: InvalidCursor, _door: Door) =>
    refusal("invalid", refusals.InvalidCursor(error), [{ name: "cursor", message: error.reason }]),
  StoreError: (error: StoreError, _door: Door) => refusal("unavailable", refusals.StoreError(error)),
  AgentRevoked: (error: AgentRevoked, _door: Door) => refusal("revoked", refusals.AgentRevoked(error))
} as const

/** How a door answers each kind of refusal: an effect that fails with its error (or answers, as HTTP answers a 401). */
export type Answers = { readonly [K in RefusalKind]: (refusal: Refusal) => Effect.Effect<unknown, unknown> }

/**
 * The handlers of `Effect.catchTags` for one door: each failure of the domain refused by the table, answered as the
 * door answers its kind. A handler names the failures it can meet (`{ ProductNotFound, StoreError }`), and the
 * types say whether it handled them all.
 */
export const refusingAt = <A extends Answers>(door: Door, answers: A) => {
  // The kind is the table's: the door's answer to it, typed as that answer is.
  const answer = <K extends RefusalKind>(refused: Refusal<K>) => answers[refused.kind](refused) as ReturnType<A[K]>
  return {
    ProductNotFound: (error: ProductNotFound) => answer(REFUSALS.ProductNotFound(error, door)),
    ProductRemoved: (error: ProductRemoved) => answer(REFUSALS.ProductRemoved(error, door)),
    VersionNotFound: (error: VersionNotFound) => answer(REFUSALS.VersionNotFound(error, door)),
    InvalidCursor: (error: InvalidCursor) => answer(REFUSALS.InvalidCursor(error, door)),
    StoreError: (error: StoreError) => answer(REFUSALS.StoreError(error, door)),
    AgentRevoked: (error: AgentRevoked) => answer(REFUSALS.AgentRevoked(error, door))
  }
}
