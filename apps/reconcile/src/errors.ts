import { Schema } from "effect"

/** `--check` found drift, or votes the integrity pass would discount or count (exit 1); the summary was already printed. */
export class WouldChange extends Schema.TaggedError<WouldChange>()("WouldChange", {
  drifted: Schema.Number,
  discounted: Schema.Number,
  released: Schema.Number
}) {}

/** Flags that do not go together or do not parse (exit 2). */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { message: Schema.String }) {}
