/**
 * A routine: a function, a view or a trigger function the service runs in its database. Its
 * definition lives here, in code that changes with the rules it carries (the trust score's z, the
 * search text's limit, how a vote counts); migrations never hold one that is still in use (they are
 * frozen: ../migrations/). At start a routine whose statements hash differently from what the
 * database recorded is installed (install.ts), in one transaction with the others that changed, and
 * what it computed into stored columns is rewritten (rewrites.ts).
 */
import { createHash } from "node:crypto"

/** Stored values a routine computes: rewritten in batches after it changes. */
export type Rewrite = "trust scores" | "search vectors"

export interface Routine {
  readonly name: string
  /** The statements that install it, in order: DROPs of what it replaces, then its CREATE. */
  readonly statements: ReadonlyArray<string>
  /** A function's body as PostgreSQL keeps it (`pg_proc.prosrc`): what is installed is held to it. */
  readonly body?: string
  readonly rewrites?: ReadonlyArray<Rewrite>
}

export const hashOf = (routine: Routine): string =>
  createHash("sha256")
    .update(JSON.stringify([routine.statements, routine.rewrites ?? []]))
    .digest("hex")

/**
 * A function routine. `replaces` are signatures it drops first: earlier shapes of it (other
 * arguments), and its own when its result's shape may change (CREATE OR REPLACE cannot change
 * that). A function a stored column depends on (the trust score) is only ever replaced.
 */
export const fn = (spec: {
  readonly name: string
  /** The arguments, as in its signature: `up bigint, down bigint`. */
  readonly args: string
  readonly returns: string
  /** `LANGUAGE sql IMMUTABLE PARALLEL SAFE`, … */
  readonly attributes: string
  readonly body: string
  readonly drops?: ReadonlyArray<string>
  readonly rewrites?: ReadonlyArray<Rewrite>
}): Routine => ({
  name: spec.name,
  statements: [
    ...(spec.drops ?? []).map((signature) => `DROP FUNCTION IF EXISTS ${signature}`),
    `CREATE OR REPLACE FUNCTION ${spec.name}(${spec.args}) RETURNS ${spec.returns}\n${spec.attributes} AS $fn$${spec.body}$fn$`
  ],
  body: spec.body,
  ...(spec.rewrites === undefined ? {} : { rewrites: spec.rewrites })
})
