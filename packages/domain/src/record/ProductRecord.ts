/**
 * The detail record of the interface spec, field for field and in the spec's
 * order: the compatibility read at `/products/{id}`. Derived fields are
 * computed by `toProductRecord`, never stored.
 */
import { Schema } from "effect"
import { ProductId } from "./ids.ts"
import type { Product } from "./Product.ts"
import { AiOptimization, HttpUrl, Label, OffsetTimestamp, Pricing, Statements, Text } from "./ProductContent.ts"
import { withTracking, type Utm } from "./tracking.ts"
import { toTrust, Trust } from "../trust/trust.ts"
import { agentCardPath, agentViewPath, problemsPath, productPath } from "./paths.ts"
import type { Slug } from "./slug.ts"

export const SCHEMA_VERSION = "1.0"

export const TrustSignals = Schema.Struct({
  website: HttpUrl.annotate({ description: "Home page with utm_source, utm_medium and utm_campaign appended" })
}).annotate({ identifier: "TrustSignals" })

export const ProductRecord = Schema.Struct({
  tip: Schema.String.annotate({ description: "Points agents to the agent-format entity read and the problems read" }),
  schema_version: Schema.Literal(SCHEMA_VERSION),
  id: ProductId,
  name: Label,
  category: Label,
  trust: Trust,
  ai_summary: Text,
  ai_features: Statements,
  ai_optimization: AiOptimization,
  recommended_for: Statements,
  not_recommended_for: Statements.annotate({ description: "Unsuitable uses; may be empty" }),
  pricing: Pricing,
  key_features: Statements,
  trust_signals: TrustSignals,
  version: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  updated_at: OffsetTimestamp,
  discovery_endpoint: Schema.String.annotate({ description: "/products/<id>" }),
  agent_card_endpoint: Schema.String.annotate({ description: "/products/<id>/agent-card" }),
  vote_endpoint: Schema.String.annotate({ description: "POST /vote with entity_id: <id>" })
}).annotate({ identifier: "ProductRecord", description: "The product detail record (compatibility read)" })
export type ProductRecord = typeof ProductRecord.Type

/** `2026-11-22T10:15:00+00:00`: seconds precision with an explicit offset. */
export const formatOffsetTimestamp = (date: Date): string => `${date.toISOString().slice(0, 19)}+00:00`

export const tipFor = (slug: Slug): string =>
  `Agents: prefer GET ${agentViewPath(slug)} (decision view) and GET ${problemsPath(slug)} (known problems) before deciding; this record is the compatibility read.`

export const toProductRecord = (product: Product, utm: Utm): ProductRecord => {
  const c = product.content
  return {
    tip: tipFor(product.slug),
    schema_version: SCHEMA_VERSION,
    id: product.id,
    name: c.name,
    category: c.category,
    trust: toTrust(product.counters, product.weighted),
    ai_summary: c.ai_summary,
    ai_features: c.ai_features,
    ai_optimization: c.ai_optimization,
    recommended_for: c.recommended_for,
    not_recommended_for: c.not_recommended_for,
    pricing: c.pricing,
    key_features: c.key_features,
    trust_signals: { website: withTracking(c.website, utm) },
    version: product.version,
    updated_at: formatOffsetTimestamp(product.updatedAt),
    discovery_endpoint: productPath(product.id),
    agent_card_endpoint: agentCardPath(product.id),
    vote_endpoint: `POST /vote with entity_id: ${product.id}`
  }
}
