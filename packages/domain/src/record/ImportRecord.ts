/**
 * The import shape (docs/operations.md, "Importing a catalog"): the detail record, with derived fields
 * optional and ignored, `id` and `trust` optional, and the extras `slug` and
 * `problems`. Export writes the same shape, so export → import is a no-op.
 */
import { Schema } from "effect"
import { withoutHiddenCharactersIn } from "./hiddenText.ts"
import { ProductId } from "./ids.ts"
import type { Product, ProductInput } from "./Product.ts"
import { AiOptimization, CatalogFields, Statements } from "./ProductContent.ts"
import { PublicWebsite } from "./publicWebsite.ts"
import { type ProductRecord, toProductRecord } from "./ProductRecord.ts"
import { Slug } from "./slug.ts"
import { withoutTracking, type Utm } from "./tracking.ts"
import { weightedOf } from "../trust/judgement.ts"
import { Count, emptyTally, toTrust } from "../trust/trust.ts"

/** Present in exported data, recomputed on import: accepted whatever they hold. */
const Derived = Schema.optionalKey(Schema.Unknown)

export const ImportTrust = Schema.Struct({
  trust_up: Count,
  trust_down: Count,
  trust_score: Schema.optionalKey(Schema.Number),
  trust_ratio: Schema.optionalKey(Schema.Number),
  evaluation_count: Schema.optionalKey(Schema.Number)
})

export const ImportRecord = Schema.Struct({
  tip: Derived,
  schema_version: Derived,
  id: Schema.optionalKey(ProductId),
  slug: Schema.optionalKey(Slug),
  ...CatalogFields,
  // The website an agent is sent to comes from one of these: each must be a public host (publicWebsite.ts).
  ai_optimization: Schema.Struct({ ...AiOptimization.fields, seeded_url: PublicWebsite }).annotate({ identifier: "ImportAiOptimization" }),
  trust: Schema.optionalKey(ImportTrust).annotate({ description: "trust_up/trust_down become the seed counts" }),
  trust_signals: Schema.optionalKey(Schema.Struct({ website: PublicWebsite })),
  version: Derived,
  updated_at: Derived,
  discovery_endpoint: Derived,
  agent_card_endpoint: Derived,
  vote_endpoint: Derived,
  problems: Schema.optionalKey(Statements)
}).annotate({ identifier: "ImportRecord" })
export type ImportRecord = typeof ImportRecord.Type

export interface Imported {
  readonly input: ProductInput
  /** Given derived trust values that disagree with the recomputed ones. */
  readonly warnings: ReadonlyArray<string>
}

/** The product an import record describes; `id` is used when the record has none. */
export const fromImportRecord = (record: ImportRecord, id: ProductId): Imported => {
  const seed = { up: record.trust?.trust_up ?? 0, down: record.trust?.trust_down ?? 0 }
  // A new product's judgement: its seed counts alone (export writes the same: its seed, not its live votes).
  const computed = toTrust(seed, weightedOf(seed, emptyTally))
  const warnings: Array<string> = []
  for (const key of ["trust_score", "trust_ratio", "evaluation_count"] as const) {
    const given = record.trust?.[key]
    if (given !== undefined && given !== computed[key]) {
      warnings.push(`trust.${key}: given ${given}, recomputed ${computed[key]} from the counts`)
    }
  }
  return {
    input: {
      id: record.id ?? id,
      slug: record.slug,
      seed,
      // What a reader could not see is no part of the record (hiddenText.ts): one normalization for every writer.
      content: withoutHiddenCharactersIn({
        name: record.name,
        category: record.category,
        ai_summary: record.ai_summary,
        ai_features: record.ai_features,
        ai_optimization: record.ai_optimization,
        recommended_for: record.recommended_for,
        not_recommended_for: record.not_recommended_for,
        pricing: record.pricing,
        key_features: record.key_features,
        website: withoutTracking(record.trust_signals?.website ?? record.ai_optimization.seeded_url),
        problems: record.problems ?? []
      })
    },
    warnings
  }
}

export type ExportRecord = ProductRecord & { readonly slug: Slug; readonly problems: ReadonlyArray<string> }

/**
 * A product in the import shape. Its trust carries the seed counts, not the
 * live ones: live votes stay in the ledger, so re-importing never counts them twice.
 */
export const toExportRecord = (product: Product, utm: Utm): ExportRecord => ({
  ...toProductRecord({ ...product, counters: product.seed, weighted: weightedOf(product.seed, emptyTally) }, utm),
  slug: product.slug,
  problems: product.content.problems
})
