/**
 * How the read cache loads a read it does not hold: from its kind and ref
 * alone, through the use cases, encoded once. One lookup for the whole cache,
 * so an entry needs to remember nothing but its bytes to be loaded again.
 */
import { Context, Effect, Layer } from "effect"
import { type ProductId, toAgentCard, toProductRecord } from "@productdir/domain"
import { Directory, type ReadError } from "@productdir/usecases"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { type Prepared, prepareFast } from "@productdir/edge/responses/preparedResponse"
import type { ReadKind } from "./readKeys.ts"

/** What a load answers: the response, and the product it is a read of. */
export interface Loaded {
  readonly productId: ProductId
  readonly prepared: Prepared
}

export class ProductReads extends Context.Service<
  ProductReads,
  { readonly load: (kind: ReadKind, ref: string) => Effect.Effect<Loaded, ReadError> }
>()("@productdir/read-cache/ProductReads") {}

const encoder = new TextEncoder()

/**
 * The body as a Buffer over the encoder's own bytes (no copy, exactly its length): a socket takes a
 * Buffer as it is, where a plain Uint8Array is wrapped in a new Buffer on every write, which is every
 * hit the front door answers.
 */
const bufferOf = (json: string): Buffer => {
  const bytes = encoder.encode(json)
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

const prepared = (productId: ProductId, body: unknown): Loaded => ({
  productId,
  prepared: prepareFast(bufferOf(JSON.stringify(body)), "application/json")
})

export const layer = Layer.effect(
  ProductReads,
  Effect.gen(function* () {
    const directory = yield* Directory.Directory
    const { utm } = yield* ApiConfig
    const load = (kind: ReadKind, ref: string): Effect.Effect<Loaded, ReadError> => {
      switch (kind) {
        case "record":
          return Effect.map(directory.product(ref), (product) => prepared(product.id, toProductRecord(product, utm)))
        case "card":
          return Effect.map(directory.product(ref), (product) => prepared(product.id, toAgentCard(product)))
        case "view":
          return Effect.map(directory.agentView(ref), (view) => prepared(view.id, view))
        case "problems":
          // The first page of the default size: without a cursor, no cursor can be invalid.
          return Effect.map(
            Effect.catchTag(directory.problems(ref, {}), "InvalidCursor", (error) => Effect.die(error)),
            (page) => prepared(page.entity.id, page)
          )
      }
    }
    return ProductReads.of({ load })
  })
)
