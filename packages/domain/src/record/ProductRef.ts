/**
 * How clients name a product: its id (UUID) or its slug. Anything else names
 * no product, so a read or a vote that carries it is refused as bad input
 * before any store is asked. Neither is told apart by case: an id is hex, and
 * a slug is lowercase (slug.ts), so `Acme-Analytics` names `acme-analytics`, as
 * an agent writing a product's name as it reads it would mean.
 */
import { Schema } from "effect"
import { SLUG_MAX_LENGTH } from "./slug.ts"

const REF = new RegExp(
  `^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|(?=[A-Za-z0-9-]{1,${SLUG_MAX_LENGTH}}$)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)$`,
  "u"
)

export const PRODUCT_REF_RULE = `a product id (UUID) or slug (letters, digits and single hyphens, at most ${SLUG_MAX_LENGTH} characters)`

/**
 * A product's id or slug, in any case; canonicalRef gives the form the stores hold. (Not a decoding
 * transformation to it: the OpenAPI and MCP documents would lose the pattern and every description.)
 */
export const ProductRef = Schema.String.check(Schema.isPattern(REF, { message: `must be ${PRODUCT_REF_RULE}` })).annotate({
  identifier: "ProductRef",
  description: "A product's id (UUID) or slug, in any case",
  examples: ["pulse-board", "85fafd52-f8ca-404c-8e4f-51918744aa4e"]
})

/** True for a string that could name a product (in any case: canonicalRef gives its form). */
export const isProductRef = (s: string): boolean => REF.test(s)

/** The canonical form of a ref that isProductRef: lowercase, as slugs and the ids the stores hold are. */
export const canonicalRef = (ref: string): string => ref.toLowerCase()
