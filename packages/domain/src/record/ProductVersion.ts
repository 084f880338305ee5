/**
 * A product's versions (docs/decisions.md, "Versions"): every change of its content or seed counts makes a new
 * version (+1) and keeps the one it replaced, so that what the directory once said of a product can be read again,
 * exactly as it was served. Trust counters are not versioned: votes make no version, and a version is what the
 * record said, not how it was trusted.
 */
import { Schema } from "effect"
import { ProductId } from "./ids.ts"
import type { Product } from "./Product.ts"
import { CatalogFields, OffsetTimestamp, type ProductContent } from "./ProductContent.ts"
import { formatOffsetTimestamp, toProductRecord, TrustSignals } from "./ProductRecord.ts"
import { versionPath, versionsPath } from "./paths.ts"
import { Slug } from "./slug.ts"
import type { Utm } from "./tracking.ts"

/** One version of a product, as the store keeps it. */
export interface VersionEntry {
  readonly version: number
  /** When it became the product's content. */
  readonly updatedAt: Date
  /** When the next version replaced it; null for the current one. */
  readonly supersededAt: Date | null
}

export interface StoredVersion extends VersionEntry {
  readonly content: ProductContent
}

/** A page of a product's versions, newest first. */
export interface VersionHistory {
  readonly product: Product
  readonly versions: ReadonlyArray<VersionEntry>
}

export interface VersionsPage {
  /** Only versions older than this one; all from the current one when absent. */
  readonly before: number | undefined
  readonly limit: number
}

const VersionNumber = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

export const VersionSummary = Schema.Struct({
  version: VersionNumber,
  current: Schema.Boolean,
  updated_at: OffsetTimestamp.annotate({ description: "When this version became the product's content" }),
  superseded_at: Schema.NullOr(OffsetTimestamp).annotate({ description: "When the next version replaced it; null for the current one" }),
  href: Schema.String.annotate({ description: "/products/<id>/versions/<version>" })
}).annotate({ identifier: "VersionSummary" })

export const VersionList = Schema.Struct({
  id: ProductId,
  slug: Slug,
  current_version: VersionNumber,
  versions: Schema.Array(VersionSummary).annotate({ description: "Newest first" }),
  next: Schema.NullOr(Schema.String).annotate({ description: "The next (older) page's path, or null when this is the last" })
}).annotate({
  identifier: "VersionList",
  description: "A product's versions, newest first: each change of its content makes one, and every one is kept"
})
export type VersionList = typeof VersionList.Type

export const ProductVersion = Schema.Struct({
  id: ProductId,
  version: VersionNumber,
  current: Schema.Boolean,
  updated_at: OffsetTimestamp,
  superseded_at: Schema.NullOr(OffsetTimestamp),
  ...CatalogFields,
  trust_signals: TrustSignals,
  versions_endpoint: Schema.String.annotate({ description: "/products/<id>/versions" })
}).annotate({
  identifier: "ProductVersion",
  description:
    "One version of a product's record: its content fields exactly as the detail record served them while it was current. Trust is not versioned (votes make no version): read it at /products/<id>."
})
export type ProductVersion = typeof ProductVersion.Type

const summaryOf = (product: Product, entry: VersionEntry) => ({
  version: entry.version,
  current: entry.version === product.version,
  updated_at: formatOffsetTimestamp(entry.updatedAt),
  superseded_at: entry.supersededAt === null ? null : formatOffsetTimestamp(entry.supersededAt),
  href: versionPath(product.id, entry.version)
})

export const toVersionList = (history: VersionHistory, page: VersionsPage): VersionList => {
  const last = history.versions.at(-1)
  return {
    id: history.product.id,
    slug: history.product.slug,
    current_version: history.product.version,
    versions: history.versions.map((entry) => summaryOf(history.product, entry)),
    next:
      last !== undefined && last.version > 1 && history.versions.length === page.limit
        ? `${versionsPath(history.product.id)}?before=${last.version}&limit=${page.limit}`
        : null
  }
}

/** A version as the detail record served it: the record of the product at that version, its content fields taken. */
export const toProductVersion = (product: Product, stored: StoredVersion, utm: Utm): ProductVersion => {
  const served = toProductRecord({ ...product, content: stored.content, version: stored.version, updatedAt: stored.updatedAt }, utm)
  const { href: _, ...summary } = summaryOf(product, stored)
  const { id, name, category, ai_summary, ai_features, ai_optimization, recommended_for, not_recommended_for, pricing, key_features } =
    served
  return {
    ...summary,
    ...{ id, name, category, ai_summary, ai_features, ai_optimization, recommended_for, not_recommended_for, pricing, key_features },
    trust_signals: served.trust_signals,
    versions_endpoint: versionsPath(product.id)
  }
}
