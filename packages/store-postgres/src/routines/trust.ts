/**
 * The domain's trust score (packages/domain/src/trust.ts), operation for operation in float8, so
 * `sort=trust` orders exactly as the API reports. `products.trust_score` is stored (a generated
 * column over this function): a change of the rule here rewrites it for every product.
 */
import { WILSON_Z } from "@productdir/domain"
import { fn, type Routine } from "./Routine.ts"

/** The score's function for a given z: the domain's, or another (tests of a rule change). */
export const trustScoreWith = (z: number): Routine =>
  fn({
    name: "productdir_trust_score",
    args: "up bigint, down bigint",
    returns: "smallint",
    attributes: "LANGUAGE sql IMMUTABLE PARALLEL SAFE",
    body: `
  SELECT CASE WHEN up + down = 0 THEN 0::smallint ELSE
    floor(100 * greatest(0::float8, least(1::float8,
      (up::float8 + (${z}::float8 * ${z}::float8) / 2
        - ${z}::float8 * sqrt((up::float8 * down::float8) / (up + down)::float8 + (${z}::float8 * ${z}::float8) / 4))
      / ((up + down)::float8 + ${z}::float8 * ${z}::float8))) + 0.5)::smallint
  END
`,
    rewrites: ["trust scores"]
  })

export const trustScore = trustScoreWith(WILSON_Z)
