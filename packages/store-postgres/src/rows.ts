/** Rows of the `products` table and their mapping to the domain's Product. */
import { Schema } from "effect"
import { type ListedProduct, type Product, ProductContent, type ProductId, type Slug } from "@productdir/domain"

export interface ProductRow {
  readonly id: string
  readonly slug: string
  readonly content: unknown
  readonly seed_up: bigint | number | string
  readonly seed_down: bigint | number | string
  readonly trust_up: bigint | number | string
  readonly trust_down: bigint | number | string
  readonly weight_up: bigint | number | string
  readonly weight_down: bigint | number | string
  readonly version: number
  readonly updated_at: Date
  readonly removed_at: Date | null
}

/** The columns a ProductRow needs, for SELECT lists. */
export const PRODUCT_COLUMNS =
  "id, slug, content, seed_up, seed_down, trust_up, trust_down, weight_up, weight_down, version, updated_at, removed_at"

const decodeContent = Schema.decodeUnknownSync(ProductContent)

export const toProduct = (row: ProductRow): Product => ({
  ...bookkeepingOf(row),
  // jsonb comes back with its keys reordered; decoding restores the schema's order (and catches a hand-edited row).
  content: decodeContent(row.content)
})

/** Content as a row of products or product_versions holds it, in the schema's order. */
export const contentOf = (content: unknown): Product["content"] => decodeContent(content)

/** A row's identity, counters and bookkeeping: a product but for its content. */
const bookkeepingOf = (row: ProductRow): Omit<Product, "content"> => ({
  id: row.id as ProductId,
  slug: row.slug as Slug,
  seed: { up: Number(row.seed_up), down: Number(row.seed_down) },
  counters: { up: Number(row.trust_up), down: Number(row.trust_down) },
  weighted: { up: Number(row.weight_up), down: Number(row.weight_down) },
  version: row.version,
  updatedAt: row.updated_at,
  removedAt: row.removed_at
})

/**
 * The columns a listed product needs (ListedProduct): its content cut to its summary's fields in the database, so
 * that a page never carries whole records out of it.
 */
export const LISTED_COLUMNS = `id, slug, jsonb_build_object(
  'name', content->'name', 'category', content->'category', 'ai_summary', content->'ai_summary',
  'pricing', jsonb_build_object('model', content#>'{pricing,model}')) AS content,
  seed_up, seed_down, trust_up, trust_down, weight_up, weight_down, version, updated_at, removed_at`

const decodeListed = Schema.decodeUnknownSync(
  Schema.Struct({
    name: ProductContent.fields.name,
    category: ProductContent.fields.category,
    ai_summary: ProductContent.fields.ai_summary,
    pricing: Schema.Struct({ model: ProductContent.fields.pricing.fields.model })
  })
)

export const toListedProduct = (row: ProductRow): ListedProduct => ({ ...bookkeepingOf(row), content: decodeListed(row.content) })
