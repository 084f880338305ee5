-- Migration 0011_crowd_defense, frozen: what the crowd defense keeps (packages/domain/src/counting.ts).
-- How each vote counts (`counted`, `held`, `discounted`), the client's neighbourhood it came from (a
-- keyed hash, for the integrity pass's evidence) and the group that discounted it; each product's two
-- decayed vote counts, for the burst guard; since when an agent has standing; and the groups the
-- integrity pass found, with their evidence and an operator's decision. A constant default: adding
-- the columns rewrites nothing, and every vote cast before counts as it did.

ALTER TABLE votes
  ADD COLUMN counting text NOT NULL DEFAULT 'counted' CHECK (counting IN ('counted', 'held', 'discounted')),
  ADD COLUMN network  text,
  ADD COLUMN group_id uuid;

CREATE INDEX votes_held ON votes (product_id) WHERE counting = 'held';

ALTER TABLE products
  ADD COLUMN rate_fast float8 NOT NULL DEFAULT 0,
  ADD COLUMN rate_slow float8 NOT NULL DEFAULT 0,
  ADD COLUMN rate_at   timestamptz;

ALTER TABLE agents ADD COLUMN standing_since timestamptz;

CREATE TABLE vote_groups (
    id         uuid PRIMARY KEY,
    status     text NOT NULL CHECK (status IN ('suspected', 'confirmed', 'cleared')),
    found_at   timestamptz NOT NULL,
    decided_at timestamptz,
    evidence   jsonb NOT NULL
  );

CREATE INDEX votes_by_group ON votes (group_id) WHERE group_id IS NOT NULL;
