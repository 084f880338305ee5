-- Migration 0019_vote_weights, frozen: the SQL it ran when it shipped, whatever the code says today.
-- Each vote weighs its voter's standing when it was cast (packages/domain/src/judgement.ts, in thousandths of a
-- vote: an agent with standing 1000, one without 25, an address 10), and each product keeps its weighted evidence
-- beside its counts (seed counts at 1000 each plus the counted votes' weights), which `trust_score` is now
-- computed from: IMDb's weighted rating, a prior of 10 votes at 0.5. Votes cast before this migration are weighed
-- by the standing their agent holds now, when it held it before the vote (the best the ledger knows).

ALTER TABLE votes ADD COLUMN weight smallint NOT NULL DEFAULT 10;

UPDATE votes v SET weight = CASE WHEN a.standing_since IS NOT NULL AND a.standing_since <= v.updated_at THEN 1000 ELSE 25 END
  FROM agents a WHERE v.voter = 'agent:' || a.id::text;

ALTER TABLE products ADD COLUMN weight_up bigint NOT NULL DEFAULT 0, ADD COLUMN weight_down bigint NOT NULL DEFAULT 0;

UPDATE products SET weight_up = seed_up * 1000, weight_down = seed_down * 1000;

UPDATE products p SET weight_up = p.weight_up + c.up, weight_down = p.weight_down + c.down
  FROM (
    SELECT product_id, coalesce(sum(weight) FILTER (WHERE direction = 'up'), 0) AS up,
           coalesce(sum(weight) FILTER (WHERE direction = 'down'), 0) AS down
    FROM votes WHERE counting = 'counted' AND revoked_at IS NULL GROUP BY product_id
  ) c
  WHERE p.id = c.product_id;

CREATE OR REPLACE FUNCTION productdir_judged_score(up bigint, down bigint) RETURNS smallint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN floor(100 * ((up + 5000)::float8 / (up + down + 10000)::float8) + 0.5)::smallint;

ALTER TABLE products DROP COLUMN trust_score;

ALTER TABLE products ADD COLUMN trust_score smallint GENERATED ALWAYS AS (productdir_judged_score(weight_up, weight_down)) STORED;

CREATE INDEX products_by_trust ON products (trust_score DESC, id) WHERE removed_at IS NULL;

CREATE INDEX products_category_by_trust ON products (lower(category), trust_score DESC, id) WHERE removed_at IS NULL;
