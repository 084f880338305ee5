/**
 * The product reads the cache keeps, and the key of each: one per body. The
 * detail record is one body whether it is read at `/products/{id}` or at
 * `/entities/{id or slug}`; only a first page of problems (no cursor, the
 * default size) is kept.
 */
import { canonicalRef, isProductId, type ProductId, ROUTES } from "@productdir/domain"
import { templateOf } from "@productdir/edge/templateOf"

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

const READS: ReadonlyArray<readonly [RegExp, ReadKind, string]> = [
  [patternOf(ROUTES.product, { id: UUID }), "record", templateOf(ROUTES.product)],
  [patternOf(ROUTES.agentCard, { id: UUID }), "card", templateOf(ROUTES.agentCard)],
  [patternOf(ROUTES.problems, { slug: `${UUID}|${REF}` }), "problems", templateOf(ROUTES.problems)],
  [patternOf(ROUTES.entity, { slug: `${UUID}|${REF}` }), "view", templateOf(ROUTES.entity)]
]

/** A request the cache can answer: the key of its body, and the template of the route it came by. */
export interface ReadOfRequest {
  readonly key: string
  readonly route: string
}

const PRODUCT_PREFIX = ROUTES.product.slice(0, ROUTES.product.indexOf(":"))
const PRODUCT_ROUTE = templateOf(ROUTES.product)
const UUID_LENGTH = 36

/**
 * `/products/{id}` with nothing after the id, its key: most of the reads the cache answers, matched by
 * their characters, without a pattern's match (and its array) or a lowercased copy of an id that is
 * lowercase already, as every id the API hands out is. Anything else: undefined, for the patterns.
 */
const productRead = (url: string): ReadOfRequest | undefined => {
  if (url.length !== PRODUCT_PREFIX.length + UUID_LENGTH || !url.startsWith(PRODUCT_PREFIX)) return undefined
  let upper = false
  for (let i = 0; i < UUID_LENGTH; i++) {
    const c = url.charCodeAt(PRODUCT_PREFIX.length + i)
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return undefined // not -
      continue
    }
    // A-F is a digit too, in the id's other case; anything else but 0-9 and a-f is not an id.
    if (c >= 65 && c <= 70) upper = true
    else if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return undefined
  }
  const id = url.slice(PRODUCT_PREFIX.length)
  return { key: `record ${upper ? id.toLowerCase() : id}`, route: PRODUCT_ROUTE }
}

/**
 * The key of a request the cache can answer as it is, and its route: a canonical product read without
 * anything the cache does not know (a cursor, a page size, another format). Anything else goes through
 * the API, which validates and answers it.
 */
export const readOfRequest = (url: string): ReadOfRequest | undefined => {
  const product = productRead(url)
  if (product !== undefined) return product
  const mark = url.indexOf("?")
  const path = mark === -1 ? url : url.slice(0, mark)
  const query = mark === -1 ? "" : url.slice(mark + 1)
  for (const [pattern, kind, route] of READS) {
    const match = pattern.exec(path)
    if (match === null) continue
    const ref = match[1]!
    // An entity is its detail record, or its view with format=agent; the others take no query at all.
    // A product's own path takes an id alone, matched already: its canonical form is its lowercase.
    if (kind === "record" || kind === "card") return query === "" ? { key: `${kind} ${ref.toLowerCase()}`, route } : undefined
    if (kind !== "view") return query === "" ? { key: readKey(kind, ref), route } : undefined
    if (query === "" || query === "format=json") return { key: readKey("record", ref), route }
    return query === "format=agent" ? { key: readKey("view", ref), route } : undefined
  }
  return undefined
}

/** The key alone (readOfRequest). */
export const keyOfRequest = (url: string): string | undefined => readOfRequest(url)?.key
