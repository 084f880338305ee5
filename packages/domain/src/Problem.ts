/**
 * Problems (docs/api.md, "Problems"): what an agent should weigh before choosing a product.
 * Catalog limitations come with the data; community reports come from down
 * votes with a reason, normalised and counted once per voter.
 */
import { Schema } from "effect"
import { Count } from "./trust.ts"
import { fnv1a } from "./hash.ts"
import { withPrototypes } from "./lookAlikes.ts"
import { ProductId } from "./ids.ts"
import type { Product } from "./Product.ts"
import { formatOffsetTimestamp } from "./ProductRecord.ts"
import { OffsetTimestamp } from "./ProductContent.ts"
import { Slug } from "./slug.ts"

export const ProblemKind = Schema.Literals(["limitation", "reported"])
export const ProblemSource = Schema.Literals(["catalog", "community"])

export const Problem = Schema.Struct({
  id: Schema.String.annotate({ description: "Stable id of the problem within the product" }),
  kind: ProblemKind,
  summary: Schema.String,
  source: ProblemSource,
  reports: Count.annotate({
    description: "Distinct voters who reported it (a catalog limitation starts at 0)"
  }),
  first_reported_at: OffsetTimestamp,
  last_reported_at: OffsetTimestamp
}).annotate({ identifier: "Problem" })
export type Problem = typeof Problem.Type

export const EntityRef = Schema.Struct({ id: ProductId, slug: Slug, name: Schema.String }).annotate({ identifier: "EntityRef" })

export const ProblemList = Schema.Struct({
  entity: EntityRef,
  problems: Schema.Array(Problem),
  total: Count,
  next_cursor: Schema.NullOr(Schema.String).annotate({ description: "Pass as `cursor` for the next page; null on the last page" })
}).annotate({ identifier: "ProblemList" })
export type ProblemList = typeof ProblemList.Type

/**
 * Characters with no visible form of their own (zero-width spaces and joiners, soft hyphens, variation
 * selectors, …): a reason that differs from another only by them looks the same to a reader.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu

/**
 * The key a reason is counted under: two reasons a reader cannot tell apart are one problem, so a count
 * cannot be split (or a look-alike entry made) by how the text was typed. Compatibility forms folded
 * (NFKC: "é" typed as one character or as "e" and an accent, full-width "ＳＳＯ", the "ﬁ" ligature), invisible
 * characters dropped, case folded, letters of other scripts that look like these read as them (the Cyrillic
 * "О" of "no SSО": lookAlikes.ts), white space trimmed and collapsed: "  No SSO " and "no  sso" are one problem.
 */
export const normalizeReason = (reason: string): string =>
  withPrototypes(reason.normalize("NFKC").replace(INVISIBLE, "").toLowerCase()).toLowerCase().trim().replace(/\s+/g, " ")

/** The text shown for a reason: composed (NFC), trimmed and collapsed, case and every character kept. */
export const tidyReason = (reason: string): string => reason.normalize("NFC").trim().replace(/\s+/g, " ")

/** One community problem as a store aggregates it from its report rows. */
export interface ReportedProblem {
  readonly key: string
  readonly summary: string
  readonly reports: number
  readonly firstReportedAt: Date
  readonly lastReportedAt: Date
}

/**
 * All problems of a product, best first: most reports, then most recent,
 * then catalog order. A community report that matches a catalog limitation
 * counts toward that limitation.
 */
export const problemsOf = (product: Product, reported: ReadonlyArray<ReportedProblem>): ReadonlyArray<Problem> => {
  const byKey = new Map(reported.map((r) => [r.key, r]))
  const catalogAt = formatOffsetTimestamp(product.updatedAt)
  const limitations: Array<Problem & { order: number }> = []
  const seen = new Set<string>()
  for (const summary of [...product.content.not_recommended_for, ...product.content.problems]) {
    const key = normalizeReason(summary)
    if (key.length === 0 || seen.has(key)) continue
    seen.add(key)
    const community = byKey.get(key)
    limitations.push({
      id: `lim-${fnv1a(key)}`,
      kind: "limitation",
      summary: tidyReason(summary),
      source: "catalog",
      reports: community?.reports ?? 0,
      first_reported_at: community ? formatOffsetTimestamp(community.firstReportedAt) : catalogAt,
      last_reported_at: community ? formatOffsetTimestamp(community.lastReportedAt) : catalogAt,
      order: limitations.length
    })
  }
  const reports = reported
    // An empty key is a reason with nothing visible in it, kept from before such reasons were refused.
    .filter((r) => r.key.length > 0 && !seen.has(r.key))
    .map((r, i): Problem & { order: number } => ({
      id: `rep-${fnv1a(r.key)}`,
      kind: "reported",
      summary: r.summary,
      source: "community",
      reports: r.reports,
      first_reported_at: formatOffsetTimestamp(r.firstReportedAt),
      last_reported_at: formatOffsetTimestamp(r.lastReportedAt),
      order: limitations.length + i
    }))
  return [...limitations, ...reports]
    .sort(
      (a, b) =>
        b.reports - a.reports ||
        (a.last_reported_at < b.last_reported_at ? 1 : a.last_reported_at > b.last_reported_at ? -1 : 0) ||
        a.order - b.order
    )
    .map(({ order: _order, ...problem }) => problem)
}
