-- Migration 0002_agents_and_shared_limits, frozen: the SQL it ran when it shipped, whatever the code says today. The
-- functions and views the service runs now are routines (../routines/), installed at start.
-- Agents (registered and signed), the marks of a revocation, the counted-votes view, and the token
-- buckets every process shares, with the function that takes from them (as it was when this shipped).

CREATE TABLE agents (
    id            uuid PRIMARY KEY,
    kind          text NOT NULL CHECK (kind IN ('registered', 'signed')),
    name          text NOT NULL,
    contact       text,
    -- registered agents: sha-256 of the API key (the key itself is never stored), and its first characters
    key_hash      text UNIQUE,
    key_hint      text,
    -- signed agents: the origin of the key directory and the key's RFC 7638 thumbprint
    key_directory text,
    key_id        text,
    -- keyed hash of the client network it registered (or first voted) from: bulk registrations cluster
    registered_from text,
    created_at    timestamptz NOT NULL,
    revoked_at    timestamptz,
    UNIQUE (key_directory, key_id),
    CHECK ((kind = 'registered') = (key_hash IS NOT NULL)),
    CHECK ((kind = 'signed') = (key_directory IS NOT NULL AND key_id IS NOT NULL))
  );

CREATE INDEX agents_by_created ON agents (created_at, id);

ALTER TABLE votes ADD COLUMN revoked_at timestamptz;

ALTER TABLE problem_reports ADD COLUMN revoked_at timestamptz;

CREATE INDEX votes_by_agent ON votes (voter) WHERE voter LIKE 'agent:%';

CREATE VIEW counted_votes AS SELECT product_id, voter, direction, created_at, updated_at FROM votes WHERE revoked_at IS NULL;

CREATE UNLOGGED TABLE rate_buckets (
    key         text PRIMARY KEY,
    tokens      float8 NOT NULL,
    max_tokens  float8 NOT NULL,
    window_ms   float8 NOT NULL,
    at          timestamptz NOT NULL
  );

CREATE OR REPLACE FUNCTION productdir_take_tokens(
    p_keys text[], p_max float8[], p_window_ms float8[], p_now timestamptz
  ) RETURNS TABLE (key text, tokens float8)
  LANGUAGE plpgsql AS $fn$
  #variable_conflict use_column
  DECLARE
    all_hold boolean;
  BEGIN
    INSERT INTO rate_buckets AS b (key, tokens, max_tokens, window_ms, at)
      SELECT w.k, w.mx, w.mx, w.win, p_now FROM unnest(p_keys, p_max, p_window_ms) AS w(k, mx, win) ORDER BY w.k
      ON CONFLICT ON CONSTRAINT rate_buckets_pkey DO UPDATE SET
        tokens = least(EXCLUDED.max_tokens,
          b.tokens + greatest(0, extract(epoch FROM EXCLUDED.at - b.at)::float8 * 1000) * EXCLUDED.max_tokens / EXCLUDED.window_ms),
        max_tokens = EXCLUDED.max_tokens,
        window_ms = EXCLUDED.window_ms,
        at = greatest(b.at, EXCLUDED.at);
    SELECT bool_and(b.tokens >= 1) INTO all_hold FROM rate_buckets b WHERE b.key = ANY(p_keys);
    RETURN QUERY SELECT b.key, b.tokens FROM rate_buckets b WHERE b.key = ANY(p_keys);
    IF all_hold THEN
      UPDATE rate_buckets b SET tokens = b.tokens - 1 WHERE b.key = ANY(p_keys);
    END IF;
  END
  $fn$;
