/**
 * The MCP tools: what an agent with only the base URL can do, described so
 * that it picks the right one. Inputs and outputs are the domain's schemas.
 */
import { Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { HttpServerRequest } from "effect/http"
import {
  AgentView,
  CategoryList,
  ListSort,
  MAX_LIMIT,
  ProblemList,
  ProductPage,
  VoteDirection,
  VoteOutcome,
  VoterId
} from "@productdir/domain"

/** A tool call that could not be answered: the text says why and what to do. */
export class ToolProblem extends Schema.TaggedError<ToolProblem>()("ToolProblem", { message: Schema.String }) {}

const Entity = Schema.String.check(Schema.isNonEmpty(), Schema.isMaxLength(200)).annotate({
  description: "The product's id (UUID) or slug, as returned by search_products"
})
const Limit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_LIMIT }))

export const SearchProducts = Tool.make("search_products", {
  description:
    "Search the product directory. Returns compact products (id, slug, name, category, summary, pricing model, trust score) ranked by trust unless another sort is asked for. Use it first to find candidates; then get_product for one of them.",
  parameters: Schema.Struct({
    q: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(200))).annotate({ description: "Words to search for; each must start a word of the product" }),
    category: Schema.optionalKey(Schema.String).annotate({ description: "Exact category label, from list_categories" }),
    sort: Schema.optionalKey(ListSort),
    limit: Schema.optionalKey(Limit).annotate({ description: `1..${MAX_LIMIT}, default 20` }),
    cursor: Schema.optionalKey(Schema.String).annotate({ description: "next_cursor of the previous page" })
  }),
  success: ProductPage,
  failure: ToolProblem
}).annotate(Tool.Title, "Search products").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false).annotate(Tool.OpenWorld, false)

export const GetProduct = Tool.make("get_product", {
  description:
    "The decision view of one product: what it does, use cases, when to avoid it, pricing plans, trust, and its top known problems. Use it before recommending or choosing a product.",
  parameters: Schema.Struct({ entity: Entity }),
  success: AgentView,
  failure: ToolProblem
}).annotate(Tool.Title, "Get a product").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false).annotate(Tool.OpenWorld, false)

export const GetProblems = Tool.make("get_problems", {
  description:
    "Known problems of one product: limitations the catalog lists and problems other agents reported with down votes, most reported first. Check them before choosing a product.",
  parameters: Schema.Struct({
    entity: Entity,
    limit: Schema.optionalKey(Limit),
    cursor: Schema.optionalKey(Schema.String).annotate({ description: "next_cursor of the previous page" })
  }),
  success: ProblemList,
  failure: ToolProblem
}).annotate(Tool.Title, "Get known problems").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false).annotate(Tool.OpenWorld, false)

export const ListCategories = Tool.make("list_categories", {
  description: "Every product category with its number of products. Use a category label to filter search_products.",
  success: CategoryList,
  failure: ToolProblem
}).annotate(Tool.Title, "List categories").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false).annotate(Tool.OpenWorld, false)

export const Vote = Tool.make("vote", {
  description:
    "Vote for (up) or against (down) a product after using it, so the next agent knows more. One live vote per product and voter: the same vote again changes nothing, the other direction moves your vote. With down, give a reason: it is reported as a problem. Returns the new trust counters.",
  parameters: Schema.Struct({
    entity_id: Entity,
    direction: Schema.optionalKey(VoteDirection).annotate({ description: "up (default) or down" }),
    voter_id: Schema.optionalKey(VoterId).annotate({ description: "Your stable agent id; without it you vote as your network address" }),
    reason: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty(), Schema.isMaxLength(280))).annotate({
      description: "Only with down: the problem you hit, at most 280 characters"
    })
  }),
  success: VoteOutcome,
  failure: ToolProblem,
  // The HTTP request identifies an anonymous voter (a keyed hash of its address) and feeds the rate limit.
  dependencies: [HttpServerRequest.HttpServerRequest]
}).annotate(Tool.Title, "Vote on a product").annotate(Tool.Readonly, false).annotate(Tool.Destructive, false).annotate(Tool.Idempotent, true).annotate(Tool.OpenWorld, false)

export const DirectoryTools = Toolkit.make(SearchProducts, GetProduct, GetProblems, ListCategories, Vote)
