-- Migration 0001_products_and_votes, frozen: the SQL it ran when it shipped, whatever the code says today. The
-- functions and views the service runs now are routines (../routines/), installed at start.
-- The products, the vote ledger, the problem reports and the settings; the trust score the listings sort
-- by (the domain's Wilson bound at z = 1.959964, as it was when this shipped).

CREATE OR REPLACE FUNCTION productdir_trust_score(up bigint, down bigint) RETURNS smallint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE WHEN up + down = 0 THEN 0::smallint ELSE
      floor(100 * greatest(0::float8, least(1::float8,
        (up::float8 + (1.959964::float8 * 1.959964::float8) / 2
          - 1.959964::float8 * sqrt((up::float8 * down::float8) / (up + down)::float8 + (1.959964::float8 * 1.959964::float8) / 4))
        / ((up + down)::float8 + 1.959964::float8 * 1.959964::float8))) + 0.5)::smallint
    END
  $fn$;

CREATE TABLE products (
    id          uuid PRIMARY KEY,
    slug        text COLLATE "C" NOT NULL UNIQUE,
    name        text NOT NULL,
    name_key    text COLLATE "C" NOT NULL,
    category    text NOT NULL,
    content     jsonb NOT NULL,
    search      tsvector NOT NULL,
    seed_up     bigint NOT NULL DEFAULT 0 CHECK (seed_up >= 0),
    seed_down   bigint NOT NULL DEFAULT 0 CHECK (seed_down >= 0),
    trust_up    bigint NOT NULL DEFAULT 0 CHECK (trust_up >= 0),
    trust_down  bigint NOT NULL DEFAULT 0 CHECK (trust_down >= 0),
    trust_score smallint GENERATED ALWAYS AS (productdir_trust_score(trust_up, trust_down)) STORED,
    version     integer NOT NULL DEFAULT 1,
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- milliseconds, like the timestamps clients see and the cursors they send back
    updated_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
    removed_at  timestamptz
  );

CREATE INDEX products_by_trust ON products (trust_score DESC, id) WHERE removed_at IS NULL;

CREATE INDEX products_by_name ON products (name_key, id) WHERE removed_at IS NULL;

CREATE INDEX products_by_updated ON products (updated_at DESC, id) WHERE removed_at IS NULL;

CREATE INDEX products_by_category ON products (category) WHERE removed_at IS NULL;

CREATE INDEX products_search ON products USING gin (search);

CREATE TABLE votes (
    product_id  uuid NOT NULL REFERENCES products (id),
    voter       text NOT NULL,
    direction   text NOT NULL CHECK (direction IN ('up', 'down')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (product_id, voter)
  );

CREATE TABLE problem_reports (
    product_id   uuid NOT NULL REFERENCES products (id),
    problem_key  text NOT NULL,
    voter        text NOT NULL,
    summary      text NOT NULL,
    reported_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (product_id, problem_key, voter)
  );

CREATE INDEX problem_reports_by_voter ON problem_reports (product_id, voter);

CREATE TABLE settings (
    key    text PRIMARY KEY,
    value  text NOT NULL
  );
