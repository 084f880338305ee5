/**
 * What a search answer reads of a product to judge how well it matches a request (assessment.ts): the
 * fields that describe it, each joined into one text and bounded, so that a page of a hundred
 * candidates costs the same whatever size their records are (a record may be a megabyte). Every store
 * makes it by this rule (the PostgreSQL store in SQL: SqlCatalogStore's `describe`).
 */
import type { ProductContent } from "../record/ProductContent.ts"
import type { ProductId } from "../record/ids.ts"

/** How many characters of each field are read. */
export const DESCRIPTION_FIELD_LIMIT = 2_000

export interface ProductDescription {
  readonly id: ProductId
  readonly name: string
  readonly category: string
  readonly summary: string
  /** key_features and ai_features. */
  readonly features: string
  /** ai_optimization.use_cases and recommended_for. */
  readonly uses: string
  readonly audience: string
  readonly benefits: string
  /** ai_optimization.competitive_position: where a record names what it competes with. */
  readonly position: string
  /** not_recommended_for and ai_optimization.not_recommended_for: what it is not for. */
  readonly against: string
  readonly pricingModel: string
  /** Each plan's price as written (`Free`, `$12/mo`), at most MAX_PLANS. */
  readonly prices: ReadonlyArray<string>
}

export const MAX_PLANS = 50

/** The first DESCRIPTION_FIELD_LIMIT characters (code points, as PostgreSQL's `left` counts them) of the parts joined. */
const bounded = (parts: ReadonlyArray<string>) => {
  const text = parts.join(" ")
  return text.length <= DESCRIPTION_FIELD_LIMIT
    ? text
    : Array.from(text.slice(0, 2 * DESCRIPTION_FIELD_LIMIT))
        .slice(0, DESCRIPTION_FIELD_LIMIT)
        .join("")
}

export const describeProduct = (id: ProductId, content: ProductContent): ProductDescription => ({
  id,
  name: content.name,
  category: content.category,
  summary: bounded([content.ai_summary]),
  features: bounded([...content.key_features, ...content.ai_features]),
  uses: bounded([...content.ai_optimization.use_cases, ...content.recommended_for]),
  audience: bounded([content.ai_optimization.target_audience]),
  benefits: bounded([content.ai_optimization.ai_benefits]),
  position: bounded([content.ai_optimization.competitive_position]),
  against: bounded([...content.not_recommended_for, content.ai_optimization.not_recommended_for]),
  pricingModel: content.pricing.model,
  prices: content.pricing.plans.slice(0, MAX_PLANS).map((plan) => plan.price)
})
