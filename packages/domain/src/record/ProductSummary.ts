/** The compact product of listings and search results. */
import { Schema } from "effect"
import { ProductId } from "./ids.ts"
import { agentCardPath, agentViewPath, problemsPath, productPath } from "./paths.ts"
import type { ListedProduct } from "./Product.ts"
import { Slug } from "./slug.ts"
import { Count, toTrustSummary, TrustSummary } from "../trust/trust.ts"
import { VoteTemplate, voteTemplateOf } from "../trust/Vote.ts"
import { SearchMatch, SearchReading } from "../request/SearchAnswer.ts"

export const ProductSummary = Schema.Struct({
  id: ProductId,
  slug: Slug,
  name: Schema.String,
  category: Schema.String,
  summary: Schema.String,
  pricing_model: Schema.String,
  trust: TrustSummary,
  links: Schema.Struct({
    record: Schema.String,
    agent_card: Schema.String,
    agent_view: Schema.String.annotate({ description: "The decision view: what to judge the product by" }),
    problems: Schema.String.annotate({ description: "Known problems, most reported first" }),
    vote: VoteTemplate
  }),
  match: Schema.optionalKey(SearchMatch)
}).annotate({ identifier: "ProductSummary" })
export type ProductSummary = typeof ProductSummary.Type

export const toProductSummary = (product: ListedProduct): ProductSummary => ({
  id: product.id,
  slug: product.slug,
  name: product.content.name,
  category: product.content.category,
  summary: product.content.ai_summary,
  pricing_model: product.content.pricing.model,
  trust: toTrustSummary(product.counters, product.weighted),
  links: {
    record: productPath(product.id),
    agent_card: agentCardPath(product.id),
    agent_view: agentViewPath(product.slug),
    problems: problemsPath(product.slug),
    vote: voteTemplateOf(product.id)
  }
})

export const ProductPage = Schema.Struct({
  items: Schema.Array(ProductSummary),
  next_cursor: Schema.NullOr(Schema.String).annotate({ description: "Pass as `cursor` for the next page; null on the last page" }),
  search: Schema.optionalKey(SearchReading)
}).annotate({ identifier: "ProductPage" })
export type ProductPage = typeof ProductPage.Type

export const CategoryList = Schema.Struct({
  categories: Schema.Array(
    Schema.Struct({
      category: Schema.String,
      count: Count,
      products: Schema.String.annotate({ description: "The listing of this category" })
    })
  )
}).annotate({ identifier: "CategoryList" })
export type CategoryList = typeof CategoryList.Type
