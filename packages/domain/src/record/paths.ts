/**
 * The public paths, named once. `ROUTES` holds their templates: the API definition declares its
 * endpoints with them (contract), the read cache recognises product reads by them (apps/api), and
 * the builders below make the links records, cards, views and search results carry.
 */
import type { ProductId } from "./ids.ts"
import type { Slug } from "./slug.ts"

export const ROUTES = {
  product: "/products/:id",
  agentCard: "/products/:id/agent-card",
  productVersions: "/products/:id/versions",
  productVersion: "/products/:id/versions/:version",
  publishers: "/publishers",
  publisher: "/publishers/:publisher_id",
  publisherVerify: "/publishers/:publisher_id/verify",
  products: "/products",
  entity: "/entities/:slug",
  problems: "/entities/:slug/problems",
  problemReplies: "/entities/:slug/problems/:problem_id/replies",
  vote: "/vote",
  agents: "/agents",
  categories: "/categories",
  index: "/",
  directoryCard: "/.well-known/agent-card.json",
  llms: "/llms.txt",
  healthz: "/healthz",
  readyz: "/readyz",
  metrics: "/metrics",
  mcp: "/mcp"
} as const

/** A template with its parameters filled in (`/products/:id` → `/products/0b7f…`). */
const fill = (template: string, params: Readonly<Record<string, string>>): string =>
  template.replace(/:([a-z_]+)/g, (_, name: string) => params[name] ?? `:${name}`)

export const productPath = (id: ProductId): string => fill(ROUTES.product, { id })
export const agentCardPath = (id: ProductId): string => fill(ROUTES.agentCard, { id })
export const publisherVerifyPath = (id: string): string => fill(ROUTES.publisherVerify, { publisher_id: id })
export const versionsPath = (id: ProductId): string => fill(ROUTES.productVersions, { id })
export const versionPath = (id: ProductId, version: number): string => fill(ROUTES.productVersion, { id, version: String(version) })
export const agentViewPath = (slug: Slug | ProductId): string => `${fill(ROUTES.entity, { slug })}?format=agent`
export const problemsPath = (slug: Slug | ProductId): string => fill(ROUTES.problems, { slug })
export const categoryListingPath = (category: string): string => `${ROUTES.products}?category=${encodeURIComponent(category)}`
export const VOTE_PATH = ROUTES.vote
export const PRODUCTS_PATH = ROUTES.products
export const AGENTS_PATH = ROUTES.agents
