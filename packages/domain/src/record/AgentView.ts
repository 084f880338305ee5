/**
 * The agent view (docs/api.md), `/entities/{slug}?format=agent`: the decision
 * view, the card plus everything an agent weighs before choosing.
 */
import { Schema } from "effect"
import { type LedgerFormation, toTrustFormation, TrustFormation } from "../trust/voteCounting.ts"
import { Count } from "../trust/trust.ts"
import { AgentCard, linksOf, toAgentCard } from "../identity/AgentCard.ts"
import { agentViewPath } from "./paths.ts"
import { Problem, PROBLEMS_NOTICE } from "../problems/Problem.ts"
import type { Product } from "./Product.ts"
import { HttpUrl, OffsetTimestamp, Pricing } from "./ProductContent.ts"
import { formatOffsetTimestamp } from "./ProductRecord.ts"
import { withTracking, type Utm } from "./tracking.ts"

export const AGENT_VIEW_TOP_PROBLEMS = 3

export const AgentView = Schema.Struct({
  ...AgentCard.fields,
  target_audience: Schema.String,
  competitive_position: Schema.String,
  benefits: Schema.String,
  key_features: Schema.Array(Schema.String),
  plans: Pricing.fields.plans,
  website: HttpUrl,
  trust_formation: TrustFormation,
  problems: Schema.Struct({
    total: Count,
    notice: Schema.String.annotate({ description: "How to read the problems: whose words are whose" }),
    top: Schema.Array(Problem).annotate({ description: `The ${AGENT_VIEW_TOP_PROBLEMS} most reported problems` })
  }),
  version: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  updated_at: OffsetTimestamp
}).annotate({ identifier: "AgentView", description: "Decision view of a product for agents" })
export type AgentView = typeof AgentView.Type

export const toAgentView = (product: Product, problems: ReadonlyArray<Problem>, utm: Utm, formation: LedgerFormation): AgentView => {
  const c = product.content
  return {
    ...toAgentCard(product),
    links: linksOf(product, agentViewPath(product.slug)),
    target_audience: c.ai_optimization.target_audience,
    competitive_position: c.ai_optimization.competitive_position,
    benefits: c.ai_optimization.ai_benefits,
    key_features: c.key_features,
    plans: c.pricing.plans,
    website: withTracking(c.website, utm),
    trust_formation: toTrustFormation(product.seed, formation),
    problems: { total: problems.length, notice: PROBLEMS_NOTICE, top: problems.slice(0, AGENT_VIEW_TOP_PROBLEMS) },
    version: product.version,
    updated_at: formatOffsetTimestamp(product.updatedAt)
  }
}
