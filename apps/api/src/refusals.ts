/**
 * What an agent is told when the directory refuses it, in one table, whichever door it came through:
 * the HTTP problems (http/domainProblems.ts, http/rateLimits.ts), the MCP tools and the MCP resources
 * (mcp/). A sentence that says what happened, then what to do; the door only says how to do it
 * (`GET /products?q=<words>` over HTTP, `search_products` over MCP).
 */
import {
  type AgentRevoked,
  describeLimit,
  type InvalidCursor,
  type ProductNotFound,
  type ProductRemoved,
  type StoreError
} from "@productdir/domain"

/** How an agent does what a refusal tells it to, at one door. */
export interface Door {
  /** How to find products. */
  readonly search: string
}

export const HTTP_DOOR: Door = { search: "GET /products?q=<words>" }
export const MCP_DOOR: Door = { search: "search_products" }

/** A rate limit that refused: what was limited, and the bucket's figures. */
export interface Limited {
  readonly limit: number
  readonly windowSeconds: number
  readonly retryAfterSeconds: number
}

export const refusals = {
  ProductNotFound: (error: ProductNotFound, door: Door) =>
    `No product has the id or slug "${error.ref}". Find products with ${door.search}.`,
  ProductRemoved: (error: ProductRemoved) => `${error.message}. Its votes are kept; choose another product.`,
  InvalidCursor: (error: InvalidCursor) => `${error.message}. Start again without a cursor.`,
  StoreError: (_: StoreError) => "The directory's store is unavailable right now. Retry shortly.",
  AgentRevoked: (_: AgentRevoked) => "This agent is revoked: its votes do not count.",
  /** `what`: "Vote", "Agent registration", "New agent (…)". */
  RateLimited: (what: string, limited: Limited) =>
    `${what} rate limit reached (${describeLimit(limited.limit, limited.windowSeconds)}). Retry after ${limited.retryAfterSeconds} s.`,
  /** A signed agent's first vote is a new identity: it draws on the network's registrations. */
  NEW_SIGNED_AGENT: "New agent (a signed agent's first vote counts as a registration)"
} as const
