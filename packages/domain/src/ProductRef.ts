/**
 * How clients name a product: its id (UUID) or its slug. Anything else names
 * no product, so a read or a vote that carries it is refused as bad input
 * before any store is asked.
 */
import { Schema } from "effect"
import { SLUG_MAX_LENGTH } from "./slug.ts"

const REF = new RegExp(
  `^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|(?=[a-z0-9-]{1,${SLUG_MAX_LENGTH}}$)[a-z0-9]+(?:-[a-z0-9]+)*)$`,
  "u"
)

export const PRODUCT_REF_RULE = `a product id (UUID) or slug (lowercase letters, digits and single hyphens, at most ${SLUG_MAX_LENGTH} characters)`

export const ProductRef = Schema.String.check(Schema.isPattern(REF, { message: `must be ${PRODUCT_REF_RULE}` })).annotate({
  identifier: "ProductRef",
  description: "A product's id (UUID) or slug",
  examples: ["pulse-board", "85fafd52-f8ca-404c-8e4f-51918744aa4e"]
})

/** True for a string that could name a product. */
export const isProductRef = (s: string): boolean => REF.test(s)
