/** The stored product: content plus identity, counters and bookkeeping. */
import type { ProductContent } from "./ProductContent.ts"
import type { ProductId } from "./ids.ts"
import type { Slug } from "./slug.ts"
import type { Tally } from "../trust/trust.ts"

export interface Product {
  readonly id: ProductId
  readonly slug: Slug
  readonly content: ProductContent
  /** Counts that came with imported data. */
  readonly seed: Tally
  /** Live counters: seed + ledger votes. A cache the reconciliation job can rebuild. */
  readonly counters: Tally
  /**
   * The same evidence weighed (judgement.ts): seed counts at a whole vote each plus the weights of the counted
   * votes, in thousandths of a vote. Also a cache of the ledger.
   */
  readonly weighted: Tally
  /** Starts at 1, +1 on every content change (never on votes). */
  readonly version: number
  /** Last content change. */
  readonly updatedAt: Date
  /** Set by `import --prune`; reads then answer 410. */
  readonly removedAt: Date | null
}

/** What a listing shows of a product's content: its summary's fields (ProductSummary.ts). */
export interface ListedContent {
  readonly name: ProductContent["name"]
  readonly category: ProductContent["category"]
  readonly ai_summary: ProductContent["ai_summary"]
  readonly pricing: { readonly model: ProductContent["pricing"]["model"] }
}

/**
 * A product as a listing holds it: everything but the content beyond its summary. A record may be a megabyte; a page
 * of a hundred whole ones loaded to list them would take the process past its heap.
 */
export interface ListedProduct extends Omit<Product, "content"> {
  readonly content: ListedContent
}

/** What an import hands to the catalog for one product. */
export interface ProductInput {
  readonly id: ProductId
  /** A slug asked for by the data; the store assigns one from the name when absent. */
  readonly slug?: Slug | undefined
  readonly content: ProductContent
  readonly seed: Tally
}

export type UpsertStatus = "created" | "updated" | "unchanged"

export interface UpsertOutcome {
  readonly id: ProductId
  readonly slug: Slug
  readonly status: UpsertStatus
  /** The publisher whose change this upsert wrote over (its version is kept): said by the import. */
  readonly overwrote?: string | undefined
}
