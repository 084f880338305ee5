-- The domain's judged score (packages/domain/src/trust/judgement.ts), operation for operation in float8 over the weighted
-- evidence in thousandths of a vote, so `sort=trust` orders exactly as the API reports. `products.trust_score` is
-- stored (a generated column over this function, migration 0019): a change of the rule here rewrites it for every
-- product. {{PRIOR_UP}} and {{PRIOR_VOTES}} are the domain's prior (PRIOR) in thousandths of a vote.

-- routine: productdir_judged_score (rewrites trust scores)
DROP FUNCTION IF EXISTS productdir_trust_score(bigint, bigint);

CREATE OR REPLACE FUNCTION productdir_judged_score(up bigint, down bigint) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT floor(100 * ((up + {{PRIOR_UP}})::float8 / (up + down + {{PRIOR_VOTES}})::float8) + 0.5)::smallint
$fn$;
