/**
 * What the directory does for its clients, whatever the transport: the HTTP
 * handlers and the MCP tools both call these use cases, so a read or a vote
 * means the same thing over either.
 */
import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import {
  type AgentView,
  CatalogStore,
  type CategoryList,
  DEFAULT_LIMIT,
  decodeOffsetCursor,
  encodeOffsetCursor,
  type InvalidCursor,
  type ListQuery,
  type Product,
  type ProblemList,
  ProblemStore,
  problemsOf,
  type ProductNotFound,
  type ProductPage,
  type ProductRemoved,
  type StoreError,
  toAgentView,
  toProductSummary,
  toTrust,
  type VoteDirection,
  VoteLedger,
  type VoteOutcome
} from "@productdir/domain"
import { ApiConfig } from "./ApiConfig.ts"
import { type Decision, RateLimiter } from "./RateLimiter.ts"
import { VoterIdentity } from "./VoterIdentity.ts"

export type ReadError = ProductNotFound | ProductRemoved | StoreError

export interface Ballot {
  readonly entity_id: string
  readonly direction?: VoteDirection | undefined
  readonly voter_id?: string | undefined
  readonly reason?: string | undefined
}

export type VoteResult =
  | { readonly _tag: "Limited"; readonly decision: Extract<Decision, { _tag: "Limited" }> }
  | { readonly _tag: "Cast"; readonly outcome: VoteOutcome; readonly decision: Extract<Decision, { _tag: "Allowed" }> }

export class Directory extends Context.Service<Directory, {
  readonly product: (ref: string) => Effect.Effect<Product, ReadError>
  readonly agentView: (ref: string) => Effect.Effect<AgentView, ReadError>
  readonly problems: (ref: string, page: { readonly limit?: number | undefined; readonly cursor?: string | undefined }) => Effect.Effect<ProblemList, ReadError | InvalidCursor>
  readonly search: (query: Omit<ListQuery, "limit" | "sort"> & Partial<Pick<ListQuery, "limit" | "sort">>) => Effect.Effect<ProductPage, InvalidCursor | StoreError>
  readonly categories: Effect.Effect<CategoryList, StoreError>
  /** One vote from the client of `request`: rate limited per voter and per address, then cast atomically. */
  readonly vote: (ballot: Ballot, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<VoteResult, ReadError>
}>()("@productdir/api/Directory") {}

export const layer = Layer.effect(Directory, Effect.gen(function*() {
  const catalog = yield* CatalogStore
  const reports = yield* ProblemStore
  const ledger = yield* VoteLedger
  const limiter = yield* RateLimiter
  const identity = yield* VoterIdentity
  const config = yield* ApiConfig

  const problemsFor = (product: Product) => Effect.map(reports.reported(product.id), (r) => problemsOf(product, r))

  return Directory.of({
    product: catalog.find,
    agentView: Effect.fn("Directory.agentView")(function*(ref: string) {
      const product = yield* catalog.find(ref)
      return toAgentView(product, yield* problemsFor(product), config.utm)
    }),
    problems: Effect.fn("Directory.problems")(function*(ref, page) {
      const product = yield* catalog.find(ref)
      const offset = page.cursor === undefined ? 0 : yield* Effect.fromResult(decodeOffsetCursor(page.cursor))
      const all = yield* problemsFor(product)
      const next = offset + (page.limit ?? DEFAULT_LIMIT)
      return {
        entity: { id: product.id, slug: product.slug, name: product.content.name },
        problems: all.slice(offset, next),
        total: all.length,
        next_cursor: next < all.length ? encodeOffsetCursor(next) : null
      }
    }),
    search: Effect.fn("Directory.search")(function*(query) {
      const page = yield* catalog.list({ ...query, sort: query.sort ?? "trust", limit: query.limit ?? DEFAULT_LIMIT })
      return { items: page.items.map(toProductSummary), next_cursor: page.nextCursor }
    }),
    categories: Effect.map(catalog.categories, (categories) => ({
      categories: categories.map(({ category, count }) => ({
        category,
        count,
        products: `/products?category=${encodeURIComponent(category)}`
      }))
    })),
    vote: Effect.fn("Directory.vote")(function*(ballot: Ballot, request: HttpServerRequest.HttpServerRequest) {
      const addressHash = identity.addressHash(identity.clientAddress(request))
      const voter = identity.voterKey(ballot.voter_id, addressHash)
      const decision = yield* limiter.take([
        { key: `voter:${voter}`, perMinute: config.votesPerVoter },
        { key: `address:${addressHash}`, perMinute: config.votesPerAddress }
      ])
      if (decision._tag === "Limited") return { _tag: "Limited", decision } as const
      const result = yield* ledger.cast({ entity: ballot.entity_id, voter, direction: ballot.direction ?? "up", reason: ballot.reason })
      const outcome: VoteOutcome = {
        entity_id: result.product.id,
        direction: result.direction,
        status: result.status,
        trust: toTrust(result.counters)
      }
      return { _tag: "Cast", outcome, decision } as const
    })
  })
}))
