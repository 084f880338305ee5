/** Community problem reports, aggregated per normalised reason. */
import { Context, type Effect } from "effect"
import type { StoreError } from "../support/errors.ts"
import type { ProductId } from "../record/ids.ts"
import type { ReportedPhrasing, StoredReply } from "../problems/Problem.ts"

export class ProblemStore extends Context.Service<
  ProblemStore,
  {
    /** Every phrasing reported of a product: its reports by normalised reason and text, and whether they may be quoted. */
    readonly reported: (id: ProductId) => Effect.Effect<ReadonlyArray<ReportedPhrasing>, StoreError>
    /** The publisher's replies to a product's problems, one per problem. */
    readonly replies: (id: ProductId) => Effect.Effect<ReadonlyArray<StoredReply>, StoreError>
    /** Keeps a publisher's reply to a problem, in place of an earlier one; every reader of the product hears of it. */
    readonly reply: (id: ProductId, reply: StoredReply) => Effect.Effect<void, StoreError>
  }
>()("@productdir/domain/ProblemStore") {}
