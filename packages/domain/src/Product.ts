/** The stored product: content plus identity, counters and bookkeeping. */
import type { ProductContent } from "./ProductContent.ts"
import type { ProductId } from "./ids.ts"
import type { Slug } from "./slug.ts"
import type { Tally } from "./trust.ts"

export interface Product {
  readonly id: ProductId
  readonly slug: Slug
  readonly content: ProductContent
  /** Counts that came with imported data. */
  readonly seed: Tally
  /** Live counters: seed + ledger votes. A cache the reconciliation job can rebuild. */
  readonly counters: Tally
  /** Starts at 1, +1 on every content change (never on votes). */
  readonly version: number
  /** Last content change. */
  readonly updatedAt: Date
  /** Set by `import --prune`; reads then answer 410. */
  readonly removedAt: Date | null
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
}
