import { Schema } from "effect"

/** An argument that does not parse (exit 2). */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { message: Schema.String }) {}
