/** The public paths, written once: records, cards and views link to each other through these. */
import type { ProductId } from "./ids.ts"
import type { Slug } from "./slug.ts"

export const productPath = (id: ProductId): string => `/products/${id}`
export const agentCardPath = (id: ProductId): string => `/products/${id}/agent-card`
export const agentViewPath = (slug: Slug | ProductId): string => `/entities/${slug}?format=agent`
export const problemsPath = (slug: Slug | ProductId): string => `/entities/${slug}/problems`
export const VOTE_PATH = "/vote"
export const PRODUCTS_PATH = "/products"
export const AGENTS_PATH = "/agents"
