/**
 * The product reads the cache keeps, and the key of each: one per body. The
 * detail record is one body whether it is read at `/products/{id}` or at
 * `/entities/{id or slug}`; only a first page of problems (no cursor, the
 * default size) is kept.
 */
import { isProductId, type ProductId } from "@productdir/domain"

export type ReadKind = "record" | "card" | "view" | "problems"

/** An id in its canonical (lowercase) form; a slug as it is (slugs are lowercase already). */
export const canonicalRef = (ref: string): string => (isProductId(ref) ? ref.toLowerCase() : ref)

export const readKey = (kind: ReadKind, ref: string): string => `${kind} ${canonicalRef(ref)}`

/** What a key names: the read and its ref (the inverse of readKey). */
export const refOfKey = (key: string): { readonly kind: ReadKind; readonly ref: string } => {
  const space = key.indexOf(" ")
  return { kind: key.slice(0, space) as ReadKind, ref: key.slice(space + 1) }
}

/** The product a ref names, when the ref is its id. */
export const productIdOf = (ref: string): ProductId | undefined => (isProductId(ref) ? (ref.toLowerCase() as ProductId) : undefined)

const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
const REF = "[a-z0-9][a-z0-9-]{0,127}"

const PRODUCT = new RegExp(`^/products/(${UUID})(/agent-card)?$`)
const ENTITY = new RegExp(`^/entities/(${UUID}|${REF})(/problems)?$`)

/**
 * The key of a request the cache can answer as it is: a canonical product read
 * without anything the cache does not know (a cursor, a page size, another
 * format). Anything else goes through the API, which validates and answers it.
 */
export const keyOfRequest = (url: string): string | undefined => {
  const mark = url.indexOf("?")
  const path = mark === -1 ? url : url.slice(0, mark)
  const query = mark === -1 ? "" : url.slice(mark + 1)
  const product = PRODUCT.exec(path)
  if (product !== null) return query === "" ? readKey(product[2] === undefined ? "record" : "card", product[1]!) : undefined
  const entity = ENTITY.exec(path)
  if (entity === null) return undefined
  if (entity[2] !== undefined) return query === "" ? readKey("problems", entity[1]!) : undefined
  if (query === "" || query === "format=json") return readKey("record", entity[1]!)
  return query === "format=agent" ? readKey("view", entity[1]!) : undefined
}
