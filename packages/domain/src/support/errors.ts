/**
 * The domain's typed failures. Each is a schema-backed tagged error, so the
 * API can put it on the wire and the CLIs can print it; none of them knows HTTP.
 */
import { Schema } from "effect"

export class ProductNotFound extends Schema.TaggedError<ProductNotFound>()("ProductNotFound", {
  ref: Schema.String
}) {
  override get message() {
    return `No product has the id or slug "${this.ref}"`
  }
}

/** A version a product never had, or had not yet: versions run from 1 to the current one. */
export class VersionNotFound extends Schema.TaggedError<VersionNotFound>()("VersionNotFound", {
  id: Schema.String,
  version: Schema.Number,
  current: Schema.Number
}) {
  override get message() {
    return `Product ${this.id} has no version ${this.version} kept: its current version is ${this.current}`
  }
}

/** A change made against a version that is no longer the current one: someone else changed the product first. */
export class VersionConflict extends Schema.TaggedError<VersionConflict>()("VersionConflict", {
  id: Schema.String,
  expected: Schema.Number,
  current: Schema.Number
}) {
  override get message() {
    return `Product ${this.id} is at version ${this.current}, not ${this.expected}: it changed since it was read`
  }
}

export class ProductRemoved extends Schema.TaggedError<ProductRemoved>()("ProductRemoved", {
  id: Schema.String,
  removedAt: Schema.String,
  /** Why, when an operator took it down (a prune gives none). */
  reason: Schema.optionalKey(Schema.String)
}) {
  override get message() {
    return this.reason === undefined
      ? `Product ${this.id} was removed from the catalog at ${this.removedAt}`
      : `Product ${this.id} was taken down at ${this.removedAt}: ${this.reason}`
  }
}

export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()("InvalidCursor", {
  cursor: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Invalid cursor: ${this.reason}`
  }
}

/**
 * Why a store failed, for whoever runs the program, since each asks for something else:
 * - `unavailable` (the default): it could not be reached, or failed on its own side;
 * - `disk-full`: it has no space left to write;
 * - `read-only`: it refuses writes for now, reads go on: the embedded store keeping its disk's last space in
 *   reserve (it takes writes again when space is freed), or a server that is a read-only replica;
 * - `data`: what was written broke a rule of the store (a unique key, a size limit): the fault of
 *   one record, which an import names and skips (`constraint` or `column` says which field).
 */
export const StoreFault = Schema.Literals(["unavailable", "disk-full", "read-only", "data"])
export type StoreFault = typeof StoreFault.Type

/**
 * The store could not be reached or failed: never a client's fault. `cause`
 * keeps the driver's error for the logs; it never reaches a client.
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  operation: Schema.String,
  detail: Schema.String,
  fault: Schema.optionalKey(StoreFault),
  /** For a `data` fault: the constraint or the column the store named. */
  constraint: Schema.optionalKey(Schema.String),
  column: Schema.optionalKey(Schema.String),
  cause: Schema.optionalKey(Schema.Defect())
}) {
  override get message() {
    return `Store failed during ${this.operation}: ${this.detail}`
  }
}

export class AgentNotFound extends Schema.TaggedError<AgentNotFound>()("AgentNotFound", {
  id: Schema.String
}) {
  override get message() {
    return `No agent has the id "${this.id}"`
  }
}

/** A vote from an agent an operator revoked: it is refused, and the agent's earlier votes no longer count. */
export class AgentRevoked extends Schema.TaggedError<AgentRevoked>()("AgentRevoked", {
  id: Schema.String
}) {
  override get message() {
    return `Agent ${this.id} is revoked: its votes do not count`
  }
}
