/** Domain failures as HTTP problems: one mapping for every handler. */
import { Effect } from "effect"
import type { InvalidCursor, ProductNotFound, ProductRemoved, StoreError } from "@productdir/domain"
import { BadRequest, Gone, NotFound, ServiceUnavailable } from "../problems.ts"

type DomainError = ProductNotFound | ProductRemoved | InvalidCursor | StoreError

const toProblem = (error: DomainError) => {
  switch (error._tag) {
    case "ProductNotFound":
      return new NotFound({
        detail: `No product has the id or slug "${error.ref}". Find products with GET /products?q=<words>.`
      })
    case "ProductRemoved":
      return new Gone({ detail: `${error.message}. Its votes are kept.` })
    case "InvalidCursor":
      return new BadRequest({
        detail: `${error.message}. Start again without a cursor.`,
        errors: [{ path: ["query", "cursor"], message: error.reason }]
      })
    case "StoreError":
      return new ServiceUnavailable({ detail: "The catalog store is unavailable. Retry shortly." })
  }
}

/** The problem each domain failure becomes; problems pass through unchanged. */
export type ProblemOf<E> = E extends ProductNotFound ? NotFound
  : E extends ProductRemoved ? Gone
  : E extends InvalidCursor ? BadRequest
  : E extends StoreError ? ServiceUnavailable
  : E

const isDomainError = (error: unknown): error is DomainError =>
  typeof error === "object" && error !== null && "_tag" in error &&
  ["ProductNotFound", "ProductRemoved", "InvalidCursor", "StoreError"].includes(String(error._tag))

export const withProblems = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, ProblemOf<E>, R> =>
  Effect.mapError(self, (error) => (isDomainError(error) ? toProblem(error) : error) as ProblemOf<E>)
