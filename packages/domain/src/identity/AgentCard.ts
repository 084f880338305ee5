/**
 * The agent card (docs/api.md): a compact card a tool-using agent can act on
 * without reading anything else: who the product is, what it does, when to
 * avoid it, what it costs, how trusted it is, and every link with its method.
 */
import { Schema } from "effect"
import { ProductId } from "../record/ids.ts"
import { AGENTS_PATH, agentCardPath, agentViewPath, problemsPath, productPath, VOTE_PATH } from "../record/paths.ts"
import type { Product } from "../record/Product.ts"
import type { Plan } from "../record/ProductContent.ts"
import { Slug } from "../record/slug.ts"
import { Count, toTrustSummary, TrustSummary } from "../trust/trust.ts"
import { REASON_MAX_LENGTH, VoteDirection } from "../trust/Vote.ts"

/** 1.1: the vote link says how a vote is counted and how to vote as an agent (`authentication`). */
export const AGENT_CARD_SCHEMA_VERSION = "1.1"

export const Link = Schema.Struct({
  method: Schema.Literals(["GET", "POST"]),
  href: Schema.String
}).annotate({ identifier: "Link" })

export const VoteAuthentication = Schema.Struct({
  register: Link.annotate({ description: "Register once: POST a name, get an API key" }),
  bearer: Schema.String.annotate({ description: "How to send the key" }),
  signed: Schema.String.annotate({ description: "Voting as a signed agent instead, without registering" }),
  anonymous: Schema.String.annotate({ description: "What a vote without proof counts as" })
}).annotate({ identifier: "VoteAuthentication", description: "How the vote is counted, and how to vote as an agent" })

/** How a vote is counted and how to vote as an agent: the same words wherever the vote is offered. */
export const VOTE_AUTHENTICATION = {
  register: { method: "POST" as const, href: AGENTS_PATH },
  bearer: "Authorization: Bearer <api_key>: the vote counts for your agent, one live vote per product and agent",
  signed:
    "Or sign the request (HTTP Message Signatures, RFC 9421, as Web Bot Auth describes: Signature-Agent naming your key directory, tag web-bot-auth, a Content-Digest of the body)",
  anonymous: "Without either, the vote counts for your client address: one live vote per product and address"
}

export const VoteLink = Schema.Struct({
  method: Schema.Literal("POST"),
  href: Schema.String,
  content_type: Schema.Literal("application/json"),
  body: Schema.Struct({ entity_id: Schema.String, direction: VoteDirection }).annotate({
    description: "A request that succeeds as sent: an up vote for this product"
  }),
  fields: Schema.Record(Schema.String, Schema.String).annotate({
    description: "Every field the body may carry, and what it takes"
  }),
  authentication: VoteAuthentication
}).annotate({ identifier: "VoteLink" })

/** What each field of a vote takes, beside the template: an agent edits the template, never guesses. */
export const VOTE_FIELDS: Readonly<Record<string, string>> = {
  entity_id: "required: this product's id (a slug works too)",
  direction: 'optional: "up" (the default) vouches for the product, "down" warns against it',
  reason: `optional, only with "down": the problem you hit, at most ${REASON_MAX_LENGTH} characters; it is listed under the product's problems`,
  voter_id: "optional and ignored: a stated name is not an identity (see authentication)"
}

export const Links = Schema.Struct({
  self: Link,
  record: Link,
  agent_view: Link,
  problems: Link,
  vote: VoteLink
}).annotate({ identifier: "Links" })

export const CheapestPlan = Schema.Struct({ name: Schema.String, price: Schema.String }).annotate({ identifier: "CheapestPlan" })

export const PricingSummary = Schema.Struct({
  model: Schema.String,
  cheapest_plan: Schema.NullOr(CheapestPlan).annotate({ description: "The plan with the lowest price; null when there are no plans" }),
  plan_count: Count
}).annotate({ identifier: "PricingSummary" })

export const AgentCard = Schema.Struct({
  schema_version: Schema.Literal(AGENT_CARD_SCHEMA_VERSION),
  id: ProductId,
  slug: Slug,
  name: Schema.String,
  category: Schema.String,
  description: Schema.String.annotate({ description: "One paragraph on what the product is" }),
  capabilities: Schema.Array(Schema.String),
  use_cases: Schema.Array(Schema.String),
  avoid_when: Schema.Array(Schema.String),
  pricing: PricingSummary,
  trust: TrustSummary,
  links: Links
}).annotate({ identifier: "AgentCard", description: "Compact card for tool-using agents" })
export type AgentCard = typeof AgentCard.Type

/** The first number in a price text; "Free" and "$0/mo" are 0; text with no number is unknown. */
export const priceAmount = (price: string): number | undefined => {
  if (/\bfree\b/i.test(price)) return 0
  const match = /(\d+(?:[.,]\d+)?)/.exec(price.replace(/(\d),(\d{3})\b/g, "$1$2"))
  return match?.[1] === undefined ? undefined : Number(match[1].replace(",", "."))
}

/** The cheapest plan by its price text; plans whose price has no number rank last, ties keep catalog order. */
export const cheapestPlan = (plans: ReadonlyArray<Plan>): Plan | undefined => {
  let best: { plan: Plan; amount: number } | undefined
  for (const plan of plans) {
    const amount = priceAmount(plan.price) ?? Number.POSITIVE_INFINITY
    if (best === undefined || amount < best.amount) best = { plan, amount }
  }
  return best?.plan
}

export const trustSummaryOf = (product: Pick<Product, "counters" | "weighted">) => toTrustSummary(product.counters, product.weighted)

export const linksOf = (product: Product, self: string) => ({
  self: { method: "GET" as const, href: self },
  record: { method: "GET" as const, href: productPath(product.id) },
  agent_view: { method: "GET" as const, href: agentViewPath(product.slug) },
  problems: { method: "GET" as const, href: problemsPath(product.slug) },
  vote: {
    method: "POST" as const,
    href: VOTE_PATH,
    content_type: "application/json" as const,
    body: { entity_id: product.id, direction: "up" as const },
    fields: VOTE_FIELDS,
    authentication: VOTE_AUTHENTICATION
  }
})

export const toAgentCard = (product: Product): AgentCard => {
  const c = product.content
  const cheapest = cheapestPlan(c.pricing.plans)
  return {
    schema_version: AGENT_CARD_SCHEMA_VERSION,
    id: product.id,
    slug: product.slug,
    name: c.name,
    category: c.category,
    description: c.ai_summary,
    capabilities: c.ai_features,
    use_cases: c.recommended_for,
    avoid_when: c.not_recommended_for,
    pricing: {
      model: c.pricing.model,
      cheapest_plan: cheapest ? { name: cheapest.name, price: cheapest.price } : null,
      plan_count: c.pricing.plans.length
    },
    trust: trustSummaryOf(product),
    links: linksOf(product, agentCardPath(product.id))
  }
}
