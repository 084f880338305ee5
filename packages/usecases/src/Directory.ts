/**
 * What the directory does for its clients, whatever the transport: the HTTP
 * handlers and the MCP tools both call these use cases, so a read or a vote
 * means the same thing over either. Nothing here knows HTTP: a vote comes with
 * its caster already resolved by the transport.
 */
import { Context, Effect, Layer, Result } from "effect"
import {
  type AgentRevoked,
  type AgentView,
  type BurstGuard,
  canonicalProductId,
  canonicalRef,
  isProductId,
  type Caster,
  countedAs,
  type Decision,
  CatalogStore,
  categoryListingPath,
  type Limit,
  type CategoryList,
  DEFAULT_LIMIT,
  defaultSort,
  voteLinksOf,
  bindCursor,
  decodeOffsetCursor,
  encodeOffsetCursor,
  unbindCursor,
  type InvalidCursor,
  type ListQuery,
  type Product,
  type ProblemList,
  ProblemStore,
  PROBLEMS_NOTICE,
  withMixedScriptsFolded,
  problemsOf,
  type ProductNotFound,
  type ProductPage,
  type ProductRemoved,
  type StoreError,
  toAgentView,
  toProductSummary,
  toTrustSummary,
  type Utm,
  type VoteDirection,
  VoteLedger,
  ledgerKey,
  type VoteOutcome,
  MILLI,
  queryWords,
  type ProductVersion,
  toProductVersion,
  toVersionList,
  type VersionList,
  type VersionNotFound,
  type Vocabulary
} from "@productdir/domain"
import { clientBudget } from "./Admission.ts"
import { makeCursorSeal } from "./CursorSeal.ts"
import { answerQuery, DESCRIPTION_CACHE_CHARACTERS, makeDescriptionCache } from "./RequestAnswer.ts"
import type { NetworkLevel } from "./network.ts"

export type ReadError = ProductNotFound | ProductRemoved | StoreError

export interface Ballot {
  readonly entity_id: string
  readonly direction?: VoteDirection | undefined
  readonly reason?: string | undefined
}

export interface DirectorySettings {
  /** Votes per minute per voter and per client; 0 turns a limit off. */
  readonly votesPerVoter: number
  readonly votesPerClient: number
  /**
   * Votes a client network may cast on one product in a day without proving who it is (an address's
   * vote), at each level of its networks (`v6/48`, `v4/24`, …); a level absent or 0 has no budget.
   */
  readonly anonymousVotesPerNetwork: Readonly<Partial<Record<NetworkLevel, number>>>
  /** The burst guard (voteCounting.ts), when the crowd defense is on; undefined: every vote counts at once. */
  readonly burstGuard: BurstGuard | undefined
  /** Tracking parameters on the website links of the reads. */
  readonly utm: Utm
  /** The words search reads requests by (the shipped vocabulary and the operator's). */
  readonly vocabulary: Vocabulary
}

const DAY_SECONDS = 86_400

export type VoteResult =
  | { readonly _tag: "Limited"; readonly decision: Extract<Decision, { _tag: "Limited" }> }
  | { readonly _tag: "Cast"; readonly outcome: VoteOutcome; readonly decision: Extract<Decision, { _tag: "Allowed" }> }

/** How many slugs a completion offers (MCP allows 100; an agent reads a short list). */
const SLUG_COMPLETIONS = 20

export class Directory extends Context.Service<
  Directory,
  {
    readonly product: (ref: string) => Effect.Effect<Product, ReadError>
    readonly agentView: (ref: string) => Effect.Effect<AgentView, ReadError>
    /** A product's versions, newest first, a page of them (older ones: `before` the last one listed). */
    readonly versions: (
      ref: string,
      page: { readonly before?: number | undefined; readonly limit?: number | undefined }
    ) => Effect.Effect<VersionList, ReadError>
    /** One version of a product, as its record served it while it was current. */
    readonly version: (ref: string, n: number) => Effect.Effect<ProductVersion, ReadError | VersionNotFound>
    readonly problems: (
      ref: string,
      page: { readonly limit?: number | undefined; readonly cursor?: string | undefined }
    ) => Effect.Effect<ProblemList, ReadError | InvalidCursor>
    readonly search: (
      query: Omit<ListQuery, "limit" | "sort"> & Partial<Pick<ListQuery, "limit" | "sort">>
    ) => Effect.Effect<ProductPage, InvalidCursor | StoreError>
    readonly categories: Effect.Effect<CategoryList, StoreError>
    /** Slugs of live products starting with what was typed: completions for agents. */
    readonly completeSlug: (prefix: string) => Effect.Effect<ReadonlyArray<string>, StoreError>
    /** One vote: rate limited per voter and per client network, then cast atomically. */
    readonly vote: (ballot: Ballot, caster: Caster) => Effect.Effect<VoteResult, ReadError | AgentRevoked>
  }
>()("@productdir/usecases/Directory") {}

export const layer = (config: DirectorySettings) =>
  Layer.effect(
    Directory,
    Effect.gen(function* () {
      const catalog = yield* CatalogStore
      const reports = yield* ProblemStore
      const ledger = yield* VoteLedger

      const seal = yield* makeCursorSeal
      const descriptions = makeDescriptionCache(DESCRIPTION_CACHE_CHARACTERS)
      // Reports and the publisher's replies, read side by side.
      const problemsFor = (product: Product) =>
        Effect.map(Effect.all([reports.reported(product.id), reports.replies(product.id)], { concurrency: 2 }), ([reported, replies]) =>
          problemsOf(product, reported, replies)
        )

      return Directory.of({
        // A ref in any case names the product its lowercase names (ProductRef): slugs and ids are stored so.
        product: (ref) => catalog.find(canonicalRef(ref)),
        agentView: Effect.fn("Directory.agentView")(function* (ref: string) {
          const product = yield* catalog.find(canonicalRef(ref))
          return toAgentView(product, yield* problemsFor(product), config.utm, yield* ledger.formation(product.id))
        }),
        versions: (ref, page) => {
          const asked = { before: page.before, limit: page.limit ?? DEFAULT_LIMIT }
          return Effect.map(catalog.versions(canonicalRef(ref), asked), (history) => toVersionList(history, asked))
        },
        version: (ref, n) =>
          Effect.map(catalog.version(canonicalRef(ref), n), ({ product, version }) => toProductVersion(product, version, config.utm)),
        problems: Effect.fn("Directory.problems")(function* (ref, page) {
          const product = yield* catalog.find(canonicalRef(ref))
          const list = `problems ${product.id}`
          const offset =
            page.cursor === undefined
              ? 0
              : yield* Effect.fromResult(
                  Result.flatMap(unbindCursor(page.cursor, list, "another product's problems", seal), (at) => decodeOffsetCursor(at))
                )
          const all = yield* problemsFor(product)
          const next = offset + (page.limit ?? DEFAULT_LIMIT)
          return {
            entity: { id: product.id, slug: product.slug, name: product.content.name },
            problems: all.slice(offset, next),
            total: all.length,
            notice: PROBLEMS_NOTICE,
            next_cursor: next < all.length ? bindCursor(encodeOffsetCursor(next), list, seal) : null
          }
        }),
        search: Effect.fn("Directory.search")(function* (query) {
          // An empty category filters nothing, as an empty `q` searches nothing. (A label is compared as stored, in any
          // case: labels are not trimmed on import, so a query's spaces are not trimmed either.)
          const category = query.category?.trim() === "" ? undefined : query.category
          const sort = query.sort ?? defaultSort(query.q)
          // A relevance search is an agent's request: read, judged and answered with how each result matched.
          if (sort === "relevance" && query.q !== undefined && queryWords(query.q).length > 0) {
            const q = withMixedScriptsFolded(query.q)
            const list = JSON.stringify(["answer", query.q, category ?? "", query.updatedSince?.toISOString() ?? ""])
            const offset =
              query.cursor === undefined
                ? 0
                : yield* Effect.fromResult(
                    Result.flatMap(
                      unbindCursor(
                        query.cursor,
                        list,
                        "another search: send q, category and updated_since as they were for its first page",
                        seal
                      ),
                      decodeOffsetCursor
                    )
                  )
            const answer = yield* answerQuery(catalog, config.vocabulary, descriptions, { q, category, updatedSince: query.updatedSince })
            const next = offset + (query.limit ?? DEFAULT_LIMIT)
            return {
              items: answer.items.slice(offset, next).map((item) => ({ ...toProductSummary(item.product), match: item.match })),
              next_cursor: next < answer.items.length ? bindCursor(encodeOffsetCursor(next), list, seal) : null,
              search: answer.reading
            }
          }
          // The search a cursor is a position in: its words, its category, its time (the sort is checked by the store).
          const list = JSON.stringify(["products", query.q ?? "", category ?? "", query.updatedSince?.toISOString() ?? ""])
          const cursor =
            query.cursor === undefined
              ? undefined
              : yield* Effect.fromResult(
                  unbindCursor(
                    query.cursor,
                    list,
                    "another search: send q, category and updated_since as they were for its first page",
                    seal
                  )
                )
          const page = yield* catalog.list({
            ...query,
            // A look-alike word ("Tаllyhouse", a Cyrillic "а") searches as the word it imitates: the real product first.
            ...(query.q === undefined ? {} : { q: withMixedScriptsFolded(query.q) }),
            category,
            cursor,
            sort,
            limit: query.limit ?? DEFAULT_LIMIT
          })
          return {
            items: page.items.map(toProductSummary),
            next_cursor: page.nextCursor === null ? null : bindCursor(page.nextCursor, list, seal)
          }
        }),
        completeSlug: (prefix) => catalog.slugsStartingWith(prefix, SLUG_COMPLETIONS),
        categories: Effect.map(catalog.categories, (categories) => ({
          categories: categories.map(({ category, count }) => ({
            category,
            count,
            products: categoryListingPath(category)
          }))
        })),
        vote: Effect.fn("Directory.vote")(function* (ballot: Ballot, caster: Caster) {
          const voterBudget: Limit = { key: `voter:${ledgerKey(caster.voter)}`, max: config.votesPerVoter, windowSeconds: 60 }
          // A vote that proves no identity draws on its networks' budgets for this product, nested: a /48
          // is one neighbourhood however many /64s it holds. The budgets are the product's own: named by
          // its id, whichever ref the ballot used.
          // A client on the server's own machine (Caster.local) has no network budgets to draw.
          const anonymous = caster.voter._tag === "Address" && caster.local !== true
          const entity = canonicalRef(ballot.entity_id)
          const productId = !anonymous ? undefined : isProductId(entity) ? canonicalProductId(entity) : (yield* catalog.find(entity)).id
          const budgets = caster.networks.flatMap((network): ReadonlyArray<Limit> => {
            const max = config.anonymousVotesPerNetwork[network.level as NetworkLevel] ?? 0
            return productId === undefined || max <= 0
              ? []
              : [{ key: `anon:${productId}:${network.level}:${network.key}`, max, windowSeconds: DAY_SECONDS }]
          })
          const cast = yield* ledger.castWithin(
            caster.budgetDrawn === true ? [voterBudget] : [voterBudget, clientBudget(caster.address, config.votesPerClient)],
            {
              entity: productId ?? entity,
              voter: caster.voter,
              direction: ballot.direction ?? "up",
              reason: ballot.reason,
              network: caster.neighbourhood,
              guard: config.burstGuard,
              budgets
            }
          )
          if (cast._tag === "Limited") return cast
          const { decision, result } = cast
          const outcome: VoteOutcome = {
            entity_id: result.productId,
            direction: result.direction,
            status: result.status,
            counted_as: countedAs(caster.voter),
            counting: result.counting,
            weight: result.weight / MILLI,
            trust: toTrustSummary(result.counters, result.weighted),
            links: voteLinksOf(result.productId)
          }
          return { _tag: "Cast", outcome, decision } as const
        })
      })
    })
  )
