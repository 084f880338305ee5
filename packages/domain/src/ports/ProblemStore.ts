/** Community problem reports, aggregated per normalised reason. */
import { Context, type Effect } from "effect"
import type { StoreError } from "../support/errors.ts"
import type { ProductId } from "../record/ids.ts"
import type { ReportedPhrasing } from "../problems/Problem.ts"

export class ProblemStore extends Context.Service<
  ProblemStore,
  {
    /** Every phrasing reported of a product: its reports by normalised reason and text, and whether they may be quoted. */
    readonly reported: (id: ProductId) => Effect.Effect<ReadonlyArray<ReportedPhrasing>, StoreError>
  }
>()("@productdir/domain/ProblemStore") {}
