/**
 * The product reads the cache keeps, and the key of each: one per body. The
 * detail record is one body whether it is read at `/products/{id}` or at
 * `/entities/{id or slug}`; only a first page of problems (no cursor, the
 * default size) is kept.
 */
import { canonicalRef, isProductId, type ProductId, ROUTES } from "@productdir/domain"

export type ReadKind = "record" | "card" | "view" | "problems"

export const readKey = (kind: ReadKind, ref: string): string => `${kind} ${canonicalRef(ref)}`

/** What a key names: the read and its ref (the inverse of readKey). */
export const refOfKey = (key: string): { readonly kind: ReadKind; readonly ref: string } => {
  const space = key.indexOf(" ")
  return { kind: key.slice(0, space) as ReadKind, ref: key.slice(space + 1) }
}

/** The product a ref names, when the ref is its id. */
export const productIdOf = (ref: string): ProductId | undefined => (isProductId(ref) ? (canonicalRef(ref) as ProductId) : undefined)

const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
// A slug in any case: its key is its canonical (lowercase) form, as the directory folds it (canonicalRef).
const REF = "[A-Za-z0-9][A-Za-z0-9-]{0,127}"

/** A route's template (domain's ROUTES) as a pattern whose groups are its parameters. */
const patternOf = (template: string, params: Readonly<Record<string, string>>): RegExp =>
  new RegExp(`^${template.replace(/[.]/g, "\\.").replace(/:([a-z]+)/g, (_, name: string) => `(${params[name]})`)}$`)

const READS: ReadonlyArray<readonly [RegExp, ReadKind]> = [
  [patternOf(ROUTES.product, { id: UUID }), "record"],
  [patternOf(ROUTES.agentCard, { id: UUID }), "card"],
  [patternOf(ROUTES.problems, { slug: `${UUID}|${REF}` }), "problems"],
  [patternOf(ROUTES.entity, { slug: `${UUID}|${REF}` }), "view"]
]

/**
 * The key of a request the cache can answer as it is: a canonical product read
 * without anything the cache does not know (a cursor, a page size, another
 * format). Anything else goes through the API, which validates and answers it.
 */
export const keyOfRequest = (url: string): string | undefined => {
  const mark = url.indexOf("?")
  const path = mark === -1 ? url : url.slice(0, mark)
  const query = mark === -1 ? "" : url.slice(mark + 1)
  for (const [pattern, kind] of READS) {
    const match = pattern.exec(path)
    if (match === null) continue
    const ref = match[1]!
    // An entity is its detail record, or its view with format=agent; the others take no query at all.
    // A product's own path takes an id alone, matched already: its canonical form is its lowercase.
    if (kind === "record" || kind === "card") return query === "" ? `${kind} ${ref.toLowerCase()}` : undefined
    if (kind !== "view") return query === "" ? readKey(kind, ref) : undefined
    if (query === "" || query === "format=json") return readKey("record", ref)
    return query === "format=agent" ? readKey("view", ref) : undefined
  }
  return undefined
}
