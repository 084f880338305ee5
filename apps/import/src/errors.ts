/** How an import run can end other than well, and the exit code each one means. */
import { Schema } from "effect"

/** Some records were rejected (exit 1): the summary and the rejections were already printed. */
export class RecordsRejected extends Schema.TaggedError<RecordsRejected>()("RecordsRejected", { count: Schema.Number }) {}

/** --prune was asked for and not done (exit 2): the summary said why. */
export class PruneRefused extends Schema.TaggedError<PruneRefused>()("PruneRefused", { reason: Schema.String }) {}

/**
 * The store failed after some batches were committed (exit 2): the summary of what was committed was printed; the
 * line says why it stopped and that a rerun finishes the job. Not "check DATABASE_URL": the store was reached.
 */
export class StoppedPartWay extends Schema.TaggedError<StoppedPartWay>()("StoppedPartWay", {
  committed: Schema.Number,
  reason: Schema.String
}) {}
