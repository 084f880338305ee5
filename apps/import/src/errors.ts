/** How an import run can end other than well, and the exit code each one means. */
import { Schema } from "effect"

/** Some records were rejected (exit 1): the summary and the rejections were already printed. */
export class RecordsRejected extends Schema.TaggedError<RecordsRejected>()("RecordsRejected", { count: Schema.Number }) {}
