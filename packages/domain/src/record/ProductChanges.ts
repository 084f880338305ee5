/**
 * What changed in the catalog, for those who keep copies of it (the API's read
 * cache): products whose reads may now answer differently (a vote, an import,
 * a removal, a repair, a revocation), or everything, when changes may have been
 * missed. A store reports its own process's changes as they commit, and, where
 * several processes share it, the others' within a second.
 */
import { Context, type Effect, type Scope } from "effect"
import type { ProductId } from "./ids.ts"

export type ProductChange =
  | { readonly _tag: "Products"; readonly ids: ReadonlyArray<ProductId> }
  /** Changes may have been missed (the change feed was cut off): drop every copy. */
  | { readonly _tag: "Everything" }

export const productsChanged = (ids: ReadonlyArray<ProductId>): ProductChange => ({ _tag: "Products", ids })
export const everythingChanged: ProductChange = { _tag: "Everything" }

export class ProductChanges extends Context.Service<
  ProductChanges,
  {
    /**
     * Calls `listener` with every change from now until the scope closes: this
     * process's own changes before the call that made them returns (read your
     * writes), other processes' as the store learns of them. Listeners run
     * synchronously and must be quick.
     */
    readonly subscribe: (listener: (change: ProductChange) => void) => Effect.Effect<void, never, Scope.Scope>
  }
>()("@productdir/domain/ProductChanges") {}
