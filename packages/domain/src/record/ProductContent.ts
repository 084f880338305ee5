/**
 * The content of a product: what an import writes and what a change to
 * bumps `version`. Counters, slug and timestamps live beside it (Product.ts).
 */
import { Schema } from "effect"
import { isOffCalendar, NOT_ON_CALENDAR } from "./calendar.ts"
import { boundedText, isStorableText } from "./text.ts"

export const Text = boundedText(10_000)
export const Label = boundedText(200).check(Schema.isNonEmpty({ message: "must not be empty" }))
export const Statements = Schema.Array(boundedText(2_000)).check(Schema.isMaxLength(200, { message: "must have at most 200 entries" }))

export const HttpUrl = Schema.String.check(
  Schema.isPattern(/^https?:\/\/[^\s/?#]+[^\s]*$/u, { message: "must be an absolute http(s) URL" }),
  Schema.isMaxLength(2_048, { message: "must be at most 2048 characters" }),
  isStorableText
).annotate({ description: "An absolute http(s) URL", examples: ["https://example.com"] })

/** ISO 8601 with a UTC offset (`Z` or `±hh:mm`), as in `updated_at`. */
export const OffsetTimestamp = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/u, {
    message: "must be an ISO 8601 timestamp with a UTC offset, like 2026-11-22T10:15:00+00:00"
  }),
  Schema.makeFilter((text: string) => !isOffCalendar(text) || NOT_ON_CALENDAR)
).annotate({ description: "ISO 8601 timestamp with UTC offset", examples: ["2026-11-22T10:15:00+00:00"] })

/** ISO 8601 without offset, as in `ai_optimization.seeded_at`. */
export const LocalTimestamp = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?$/u, {
    message: "must be an ISO 8601 timestamp without offset, like 2026-01-15T09:30:00"
  }),
  Schema.makeFilter((text: string) => !isOffCalendar(text) || NOT_ON_CALENDAR)
).annotate({
  description: "ISO 8601 timestamp without UTC offset",
  examples: ["2026-01-15T09:30:00"]
})

export const AiOptimization = Schema.Struct({
  seeded_at: LocalTimestamp,
  use_cases: Statements,
  seeded_url: HttpUrl,
  ai_benefits: Text,
  seeded_from: boundedText(200),
  target_audience: Text,
  not_recommended_for: Text.annotate({ description: "A single string here, unlike the top-level array" }),
  competitive_position: Text
}).annotate({ identifier: "AiOptimization" })
export type AiOptimization = typeof AiOptimization.Type

export const Plan = Schema.Struct({
  name: Label,
  price: boundedText(100)
    .check(Schema.isNonEmpty({ message: "must not be empty" }))
    .annotate({
      description: "Price text with currency and period",
      examples: ["$12/mo", "€9/user/mo", "Free"]
    }),
  features: Statements
}).annotate({ identifier: "Plan" })
export type Plan = typeof Plan.Type

export const Pricing = Schema.Struct({
  model: Label.annotate({ description: "Pricing model label", examples: ["freemium", "subscription"] }),
  plans: Schema.Array(Plan).check(Schema.isMaxLength(50))
}).annotate({ identifier: "Pricing" })
export type Pricing = typeof Pricing.Type

/** The catalog's own fields, shared by the stored content and the import shape. */
export const CatalogFields = {
  name: Label,
  category: Label,
  ai_summary: Text,
  ai_features: Statements,
  ai_optimization: AiOptimization,
  recommended_for: Statements,
  not_recommended_for: Statements,
  pricing: Pricing,
  key_features: Statements
}

/** The detail record's fields that are a product's content (CatalogFields), by name: what a version and a change hold. */
export const CATALOG_FIELD_NAMES = Object.keys(CatalogFields) as ReadonlyArray<keyof typeof CatalogFields>

/** What a publisher sends to change a record: any of its content fields (docs/decisions.md, "Publishers"). */
export const RecordChange = Schema.Struct({
  name: Schema.optionalKey(Label),
  category: Schema.optionalKey(Label),
  ai_summary: Schema.optionalKey(Text),
  ai_features: Schema.optionalKey(Statements),
  ai_optimization: Schema.optionalKey(AiOptimization),
  recommended_for: Schema.optionalKey(Statements),
  not_recommended_for: Schema.optionalKey(Statements),
  pricing: Schema.optionalKey(Pricing),
  key_features: Schema.optionalKey(Statements),
  trust_signals: Schema.optionalKey(Schema.Struct({ website: HttpUrl })),
  problems: Schema.optionalKey(Statements.annotate({ description: "Known limitations the catalog lists" }))
}).annotate({
  identifier: "RecordChange",
  description: "The fields to change, each replacing the record's whole field; the id, slug, trust, version and dates are the directory's"
})
export type RecordChange = typeof RecordChange.Type

/** What a publisher sends to add a product: a whole record's content fields, its website on the publisher's domain. */
export const NewProduct = Schema.Struct({
  ...CatalogFields,
  trust_signals: Schema.Struct({ website: HttpUrl }),
  problems: Schema.optionalKey(Statements.annotate({ description: "Known limitations the catalog lists" }))
}).annotate({
  identifier: "NewProduct",
  description: "A new product's record: the directory gives it its id, slug, trust (none yet), version and dates"
})
export type NewProduct = typeof NewProduct.Type

export const ProductContent = Schema.Struct({
  ...CatalogFields,
  /** The home page without tracking parameters; `trust_signals.website` is derived from it. */
  website: HttpUrl,
  /** Known limitations listed by the catalog, beyond `not_recommended_for` (docs/api.md, "Problems"). */
  problems: Statements
}).annotate({ identifier: "ProductContent" })
export type ProductContent = typeof ProductContent.Type

/** Content equality: both sides come out of the same schema, so key order is fixed. */
export const sameContent = (a: ProductContent, b: ProductContent): boolean => JSON.stringify(a) === JSON.stringify(b)
