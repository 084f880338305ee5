/**
 * Slugs (docs/decisions.md, "Record and slugs"): lowercase ASCII kebab-case of the name, at most 80
 * characters, unique across the catalog, assigned once and kept on rename.
 */
import { Schema } from "effect"
import { withMixedScriptsFolded } from "../problems/lookAlikes.ts"

export const SLUG_MAX_LENGTH = 80

/** Used when a name has no ASCII letter or digit at all (e.g. "東京" or "★★★"). */
export const FALLBACK_SLUG = "product"

export const Slug = Schema.String.check(
  Schema.isPattern(/^[a-z0-9]+(?:-[a-z0-9]+)*$/u, { message: "must be lowercase letters and digits joined by single hyphens" }),
  Schema.isMaxLength(SLUG_MAX_LENGTH, { message: `must be at most ${SLUG_MAX_LENGTH} characters` })
)
  .pipe(Schema.brand("Slug"))
  .annotate({
    identifier: "Slug",
    description: "Lowercase ASCII kebab-case identifier of a product, e.g. `acme-analytics`",
    examples: ["acme-analytics" as never]
  })
export type Slug = typeof Slug.Type

const cut = (slug: string, max: number): string => slug.slice(0, max).replace(/-+$/, "")

/** The slug a name asks for, before collisions are resolved. */
export const slugify = (name: string): Slug => {
  // A look-alike word slugs as the word it imitates: "Tаllyhouse" (Cyrillic "а") asks for tallyhouse, not tllyhouse.
  const ascii = withMixedScriptsFolded(name)
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // combining marks left by NFKD: "é" -> "e"
    .replace(/ß/g, "ss")
    .replace(/æ/gi, "ae")
    .replace(/ø/gi, "o")
    .replace(/&/g, " and ")
    .toLowerCase()
  const kebab = cut(ascii.replace(/[^a-z0-9]+/g, "-").replace(/^-+/, ""), SLUG_MAX_LENGTH)
  return (kebab.length > 0 ? kebab : FALLBACK_SLUG) as Slug
}

/** Suffixes `firstFreeSlug` may add, by length: `-2` to `-9999999999`. */
const SUFFIX_LENGTHS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]

/**
 * What every numbered variant of `base` starts with, before its `-N`. A long base is cut to leave
 * room for the suffix, so `…-platform-a`'s variants are `…-platform-2` but `…-platfor-10`: a store
 * that looks for the variants taken must look under each of these stems, not under `base` alone.
 */
export const suffixStems = (base: Slug): ReadonlyArray<string> => [
  ...new Set(SUFFIX_LENGTHS.map((length) => cut(base, SLUG_MAX_LENGTH - length)))
]

/**
 * The first free slug for `base`: `base`, then `base-2`, `base-3`, ...
 * The suffix never pushes the slug past the 80-character limit.
 */
export const firstFreeSlug = (base: Slug, isTaken: (candidate: string) => boolean): Slug => {
  if (!isTaken(base)) return base
  for (let n = 2; ; n++) {
    const suffix = `-${n}`
    const candidate = `${cut(base, SLUG_MAX_LENGTH - suffix.length)}${suffix}`
    if (!isTaken(candidate)) return candidate as Slug
  }
}
