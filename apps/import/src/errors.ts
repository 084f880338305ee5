/** How an import run can end other than well, and the exit code each one means. */
import { Schema } from "effect"

/** Some records were rejected (exit 1): the summary and the rejections were already printed. */
export class RecordsRejected extends Schema.TaggedError<RecordsRejected>()("RecordsRejected", { count: Schema.Number }) {}

/** --prune was asked for and not done (exit 2): the summary said why. */
export class PruneRefused extends Schema.TaggedError<PruneRefused>()("PruneRefused", { reason: Schema.String }) {}
