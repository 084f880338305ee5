/**
 * Names that impersonate (docs/threat-model.md, "Agents as readers"): a record whose name looks like another
 * product's (one UTS #39 skeleton, different letters: "Tаllyhouse" with a Cyrillic "а" beside Tallyhouse) would read
 * as that product to every agent and rank right behind it. A new product may not take such a name: the record is
 * refused, naming the field. A product already in the catalog under such a name (imported before this check) is
 * flagged for review as a warning, and `--strict` refuses it.
 *
 * The other product is found where the look-alike asks for its slug: a look-alike word slugs as the word it imitates
 * (slug.ts), so "Tаllyhouse" asks for tallyhouse, the real one's. Records of one batch are checked against each other.
 */
import { Effect } from "effect"
import type { CatalogStore } from "@productdir/domain"
import { looksLike, nameSkeleton, slugify } from "@productdir/domain"
import type { Checked } from "./ImportChecks.ts"

type Valid = Extract<Checked, { readonly _tag: "Valid" }>

/** What the check found of one record of a batch: the record, and the product its name imitates. */
export interface LookAlike {
  readonly record: Valid
  /** The record's product is in the catalog already: flagged, not refused. */
  readonly existing: boolean
  readonly message: string
}

export const findLookAlikes = (catalog: CatalogStore["Service"], batch: ReadonlyArray<Valid>) =>
  Effect.gen(function* () {
    const slugs = batch.map((c) => slugify(c.input.content.name))
    const known = yield* catalog.namedBySlugs(slugs)
    const bySlug = new Map(known.map((p) => [p.slug as string, p]))
    const earlier = new Map<string, { readonly id: string; readonly name: string; readonly where: string }>()
    const found: Array<LookAlike> = []
    for (const [i, record] of batch.entries()) {
      const { id, content } = record.input
      const slug = slugs[i]!
      const skeleton = nameSkeleton(content.name)
      const inCatalog = bySlug.get(slug)
      const inBatch = earlier.get(skeleton)
      const other =
        inCatalog !== undefined && inCatalog.id !== id && looksLike(content.name, inCatalog.name)
          ? `"${inCatalog.name}" (${inCatalog.slug})`
          : inBatch !== undefined && inBatch.id !== id && looksLike(content.name, inBatch.name)
            ? `"${inBatch.name}" (${inBatch.where})`
            : undefined
      if (!earlier.has(skeleton)) earlier.set(skeleton, { id, name: content.name, where: record.where })
      if (other === undefined) continue
      const existing = yield* catalog
        .find(id)
        .pipe(
          Effect.as(true),
          Effect.catchTags({ ProductNotFound: () => Effect.succeed(false), ProductRemoved: () => Effect.succeed(true) })
        )
      found.push({
        record,
        existing,
        message: `looks like ${other}, another product's name: it differs only by characters that look the same (Unicode TR39 confusables)${existing ? "; flagged for review (--strict refuses it)" : ": a new product may not take a look-alike name"}`
      })
    }
    return found
  })
