/**
 * The domain's failures as HTTP problems, one function each, for `Effect.catchTags`
 * in the handlers: every handler names the failures it can meet, and the types say
 * whether it handled them all.
 */
import { Effect } from "effect"
import type { InvalidCursor, ProductNotFound, ProductRemoved, StoreError } from "@productdir/domain"
import { BadRequest, Gone, NotFound, ServiceUnavailable } from "@productdir/contract"

export const productNotFound = (error: ProductNotFound) =>
  Effect.fail(new NotFound({ detail: `No product has the id or slug "${error.ref}". Find products with GET /products?q=<words>.` }))

export const productRemoved = (error: ProductRemoved) => Effect.fail(new Gone({ detail: `${error.message}. Its votes are kept.` }))

export const invalidCursor = (error: InvalidCursor) =>
  Effect.fail(
    new BadRequest({
      detail: `${error.message}. Start again without a cursor.`,
      errors: [{ path: ["query", "cursor"], message: error.reason }]
    })
  )

/** The store failed: never the client's fault. The driver's error was logged where it happened. */
export const storeUnavailable = (_: StoreError) =>
  Effect.fail(new ServiceUnavailable({ detail: "The catalog store is unavailable. Retry shortly." }))

/** What a read of one product can meet. */
export const readProblems = {
  ProductNotFound: productNotFound,
  ProductRemoved: productRemoved,
  StoreError: storeUnavailable
} as const
