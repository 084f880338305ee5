import { Schema } from "effect"

/** `--check` found drift (exit 1); the summary was already printed. */
export class DriftFound extends Schema.TaggedError<DriftFound>()("DriftFound", { count: Schema.Number }) {}

/** Flags that do not go together or do not parse (exit 2). */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { message: Schema.String }) {}
