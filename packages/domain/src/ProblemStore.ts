/** Community problem reports, aggregated per normalised reason. */
import { Context, type Effect } from "effect"
import type { StoreError } from "./errors.ts"
import type { ProductId } from "./ids.ts"
import type { ReportedProblem } from "./Problem.ts"

export class ProblemStore extends Context.Service<
  ProblemStore,
  {
    /** Every reported problem of a product: one per normalised reason, counted once per voter. */
    readonly reported: (id: ProductId) => Effect.Effect<ReadonlyArray<ReportedProblem>, StoreError>
  }
>()("@productdir/domain/ProblemStore") {}
