/**
 * The domain's judged score (packages/domain/src/trust/judgement.ts), operation for operation in float8 over the weighted
 * evidence in thousandths of a vote, so `sort=trust` orders exactly as the API reports. `products.trust_score` is
 * stored (a generated column over this function, migration 0019): a change of the rule here rewrites it for every
 * product.
 */
import { MILLI, PRIOR } from "@productdir/domain"
import { fn, type Routine } from "./Routine.ts"

/** The score's function for a given prior: the domain's, or another (tests of a rule change). */
export const judgedScoreWith = (prior: { readonly votes: number; readonly share: number }): Routine =>
  fn({
    name: "productdir_judged_score",
    args: "up bigint, down bigint",
    returns: "smallint",
    attributes: "LANGUAGE sql IMMUTABLE PARALLEL SAFE",
    // The score over the counts (migration 0001's column, until migration 0019 weighed the votes).
    drops: ["productdir_trust_score(bigint, bigint)"],
    body: `
  SELECT floor(100 * ((up + ${prior.votes * prior.share * MILLI})::float8 / (up + down + ${prior.votes * MILLI})::float8) + 0.5)::smallint
`,
    rewrites: ["trust scores"]
  })

export const trustScore = judgedScoreWith(PRIOR)
