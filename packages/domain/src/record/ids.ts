import { Schema } from "effect"

export const ProductId = Schema.String.check(Schema.isUUID())
  .pipe(Schema.brand("ProductId"))
  .annotate({
    identifier: "ProductId",
    description: "Product identifier (UUID)",
    examples: ["0b7f3c8e-3b52-4c8e-9d0a-6f1f2d3c4b5a" as never]
  })
export type ProductId = typeof ProductId.Type

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** True for a string of UUID form: reads that take "id or slug" try the id first. */
export const isProductId = (s: string): s is ProductId => UUID.test(s)

/** Lowercase canonical form, so "ABC..." and "abc..." name the same product. */
export const canonicalProductId = (s: ProductId): ProductId => s.toLowerCase() as ProductId
