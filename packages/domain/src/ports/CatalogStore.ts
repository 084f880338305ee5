/** The catalog: products by id or slug, batch upserts, listing, removal. */
import { Context, type Effect, type Stream } from "effect"
import type { InvalidCursor, ProductNotFound, ProductRemoved, StoreError, VersionConflict, VersionNotFound } from "../support/errors.ts"
import type { ProductId } from "../record/ids.ts"
import type { ListQuery, Page } from "../record/Listing.ts"
import type { ListedProduct, Product, ProductInput, UpsertOutcome, UpsertStatus } from "../record/Product.ts"
import type { Slug } from "../record/slug.ts"
import type { StoredVersion, VersionHistory, VersionsPage } from "../record/ProductVersion.ts"
import type { ProductDescription } from "../request/ProductDescription.ts"

export interface CategoryCount {
  readonly category: string
  readonly count: number
}

/** A product by its name and slug. */
export interface NamedProduct {
  readonly id: ProductId
  readonly slug: Slug
  readonly name: string
}

export class CatalogStore extends Context.Service<
  CatalogStore,
  {
    /** A product by id (UUID form) or slug. A removed product fails with ProductRemoved. */
    readonly find: (ref: string) => Effect.Effect<Product, ProductNotFound | ProductRemoved | StoreError>
    /**
     * Creates or updates a batch of products atomically. `version` and
     * `updated_at` move only when content or seed counts change; an unchanged
     * input is reported `unchanged` and left alone. A removed product that comes
     * back is restored (`updated`). Outcomes are in input order; an update of a record a publisher changed last says
     * whose change it wrote over (`overwrote`).
     */
    readonly upsert: (inputs: ReadonlyArray<ProductInput>) => Effect.Effect<ReadonlyArray<UpsertOutcome>, StoreError>
    /**
     * A live product's versions, newest first: the current one and every one it replaced (an upsert that changes a
     * product keeps the version it replaces, in its transaction), a page of them.
     */
    readonly versions: (ref: string, page: VersionsPage) => Effect.Effect<VersionHistory, ProductNotFound | ProductRemoved | StoreError>
    /** Version `n` of a live product, its content as it was, with the product as it is. */
    readonly version: (
      ref: string,
      n: number
    ) => Effect.Effect<
      { readonly product: Product; readonly version: StoredVersion },
      ProductNotFound | ProductRemoved | VersionNotFound | StoreError
    >
    /**
     * Changes one live product, only while it is at `expected` (its version when the change was made): a new version,
     * the one replaced kept, as an upsert does; nothing when the input changes nothing. The product as it is after.
     */
    readonly edit: (
      input: ProductInput,
      expected: number,
      /** Who changes it: the publisher's domain, kept until an import writes the record again. */
      by: string
    ) => Effect.Effect<Product, ProductNotFound | ProductRemoved | VersionConflict | StoreError>
    /** What `upsert` would report for these inputs, writing nothing (dry runs). */
    readonly preview: (inputs: ReadonlyArray<ProductInput>) => Effect.Effect<ReadonlyArray<UpsertStatus>, StoreError>
    /** Live products, filtered and ordered by the query, one page after the cursor: their summaries' fields only. */
    readonly list: (query: ListQuery) => Effect.Effect<Page<ListedProduct>, InvalidCursor | StoreError>
    /**
     * What a search answer reads of these live products (ProductDescription: their describing fields, each bounded),
     * in no order; an id that is not a live product is left out.
     */
    readonly describe: (ids: ReadonlyArray<ProductId>) => Effect.Effect<ReadonlyArray<ProductDescription>, StoreError>
    /** Slugs of live products that start with `prefix` (any case), A→Z, at most `limit`: completions. */
    readonly slugsStartingWith: (prefix: string, limit: number) => Effect.Effect<ReadonlyArray<Slug>, StoreError>
    /** The live products that have these slugs, in no order: their ids and names (an import's look-alike check). */
    readonly namedBySlugs: (slugs: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<NamedProduct>, StoreError>
    /** Categories of live products with their counts, by name. */
    readonly categories: Effect.Effect<ReadonlyArray<CategoryCount>, StoreError>
    /**
     * An operator's takedown: the product is removed (reads answer 410 with `reason`), its votes kept; false when it
     * was removed already. Every reader hears of it.
     */
    readonly takeDown: (id: ProductId, reason: string) => Effect.Effect<boolean, ProductNotFound | StoreError>
    /** Undoes a takedown (or a prune): the product is live again as it was; false when it was live. */
    readonly bringBack: (id: ProductId) => Effect.Effect<boolean, ProductNotFound | StoreError>
    /** Marks products removed (reads answer 410, votes are kept). Returns how many were live. */
    readonly remove: (ids: ReadonlyArray<ProductId>) => Effect.Effect<number, StoreError>
    /** Live products whose id `isKept` refuses: what `import --prune` removes. */
    readonly absentFrom: (isKept: (id: ProductId) => boolean) => Stream.Stream<ProductId, StoreError>
    /** Every live product by id, in pages of `batchSize`: for export, with bounded memory. */
    readonly scan: (batchSize: number) => Stream.Stream<Product, StoreError>
    /** Fails when the store cannot be reached: the readiness probe. */
    readonly ping: Effect.Effect<void, StoreError>
  }
>()("@productdir/domain/CatalogStore") {}
