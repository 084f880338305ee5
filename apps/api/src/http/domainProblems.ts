/**
 * The domain's failures as HTTP problems, one function each, for `Effect.catchTags`
 * in the handlers: every handler names the failures it can meet, and the types say
 * whether it handled them all. Their words are the one table's (../refusals.ts).
 */
import { Effect } from "effect"
import type { InvalidCursor, ProductNotFound, ProductRemoved, StoreError } from "@productdir/domain"
import { BadRequest, Gone, NotFound, ServiceUnavailable } from "@productdir/contract"
import { HTTP_DOOR, refusals } from "../refusals.ts"

export const productNotFound = (error: ProductNotFound) => Effect.fail(new NotFound({ detail: refusals.ProductNotFound(error, HTTP_DOOR) }))

export const productRemoved = (error: ProductRemoved) => Effect.fail(new Gone({ detail: refusals.ProductRemoved(error) }))

export const invalidCursor = (error: InvalidCursor) =>
  Effect.fail(new BadRequest({ detail: refusals.InvalidCursor(error), errors: [{ path: ["query", "cursor"], message: error.reason }] }))

/** The store failed: never the client's fault. The driver's error was logged where it happened. */
export const storeUnavailable = (error: StoreError) => Effect.fail(new ServiceUnavailable({ detail: refusals.StoreError(error) }))

/** What a read of one product can meet. */
export const readProblems = {
  ProductNotFound: productNotFound,
  ProductRemoved: productRemoved,
  StoreError: storeUnavailable
} as const
