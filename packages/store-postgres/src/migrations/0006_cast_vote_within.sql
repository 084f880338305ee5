-- Migration 0006_cast_vote_within, frozen: the SQL it ran when it shipped, whatever the code says today. The
-- functions and views the service runs now are routines (../routines/), installed at start.
-- The vote and its rate limits in one statement (one round trip instead of two), as it shipped.
-- Replaced by the routine of the same name (routines/sql/castVote.sql).

CREATE OR REPLACE FUNCTION productdir_cast_vote_within(
    p_keys text[], p_max float8[], p_window_ms float8[],
    p_id uuid, p_slug text, p_voter text, p_agent uuid, p_direction text, p_now timestamptz,
    p_first_up int, p_first_down int, p_moved_up int, p_moved_down int,
    p_reason_key text, p_reason_summary text
  ) RETURNS TABLE (
    limit_keys text[], limit_tokens float8[],
    outcome text, product_id uuid, removed_at timestamptz, previous text, trust_up bigint, trust_down bigint, xid text
  )
  LANGUAGE plpgsql AS $fn$
  DECLARE
    v_keys text[];
    v_tokens float8[];
  BEGIN
    SELECT coalesce(array_agg(t.key), '{}'), coalesce(array_agg(t.tokens), '{}') INTO v_keys, v_tokens
      FROM productdir_take_tokens(p_keys, p_max, p_window_ms, p_now) t;
    IF EXISTS (SELECT 1 FROM unnest(v_tokens) AS left_over WHERE left_over < 1) THEN
      RETURN QUERY SELECT v_keys, v_tokens, 'limited'::text, NULL::uuid, NULL::timestamptz, NULL::text, NULL::bigint, NULL::bigint, NULL::text;
      RETURN;
    END IF;
    RETURN QUERY SELECT v_keys, v_tokens, c.outcome, c.product_id, c.removed_at, c.previous, c.trust_up, c.trust_down, c.xid
      FROM productdir_cast_vote(p_id, p_slug, p_voter, p_agent, p_direction, p_now,
        p_first_up, p_first_down, p_moved_up, p_moved_down, p_reason_key, p_reason_summary) AS c;
  END
  $fn$;
