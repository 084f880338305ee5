-- Migration 0004_cast_vote, frozen: the SQL it ran when it shipped, whatever the code says today. The
-- functions and views the service runs now are routines (../routines/), installed at start.
-- One vote in one call: the function as it shipped, with the counters' moves passed in positionally.
-- Replaced by the routine of the same name (routines/sql/castVote.sql).

CREATE OR REPLACE FUNCTION productdir_cast_vote(
    p_id uuid, p_slug text, p_voter text, p_agent uuid, p_direction text, p_now timestamptz,
    p_first_up int, p_first_down int, p_moved_up int, p_moved_down int,
    p_reason_key text, p_reason_summary text
  ) RETURNS TABLE (outcome text, product_id uuid, removed_at timestamptz, previous text, trust_up bigint, trust_down bigint, xid text)
  LANGUAGE plpgsql AS $fn$
  #variable_conflict use_column
  DECLARE
    v_revoked timestamptz;
    v_id uuid;
    v_removed timestamptz;
    v_up bigint;
    v_down bigint;
    v_previous text;
    v_xid text;
  BEGIN
    IF p_agent IS NOT NULL THEN
      SELECT a.revoked_at INTO v_revoked FROM agents a WHERE a.id = p_agent FOR SHARE;
      IF NOT FOUND OR v_revoked IS NOT NULL THEN
        RETURN QUERY SELECT 'agent_revoked'::text, NULL::uuid, NULL::timestamptz, NULL::text, NULL::bigint, NULL::bigint, NULL::text;
        RETURN;
      END IF;
    END IF;
    IF p_id IS NOT NULL THEN
      SELECT p.id, p.removed_at, p.trust_up, p.trust_down INTO v_id, v_removed, v_up, v_down FROM products p WHERE p.id = p_id FOR UPDATE;
    ELSE
      SELECT p.id, p.removed_at, p.trust_up, p.trust_down INTO v_id, v_removed, v_up, v_down FROM products p WHERE p.slug = p_slug FOR UPDATE;
    END IF;
    IF v_id IS NULL THEN
      RETURN QUERY SELECT 'not_found'::text, NULL::uuid, NULL::timestamptz, NULL::text, NULL::bigint, NULL::bigint, NULL::text;
      RETURN;
    END IF;
    IF v_removed IS NOT NULL THEN
      RETURN QUERY SELECT 'removed'::text, v_id, v_removed, NULL::text, NULL::bigint, NULL::bigint, NULL::text;
      RETURN;
    END IF;
    SELECT v.direction INTO v_previous FROM votes v WHERE v.product_id = v_id AND v.voter = p_voter;
    IF v_previous IS DISTINCT FROM p_direction THEN
      INSERT INTO votes AS v (product_id, voter, direction, created_at, updated_at)
        VALUES (v_id, p_voter, p_direction, p_now, p_now)
        ON CONFLICT (product_id, voter) DO UPDATE SET direction = EXCLUDED.direction, updated_at = EXCLUDED.updated_at;
      UPDATE products p SET
        trust_up = p.trust_up + CASE WHEN v_previous IS NULL THEN p_first_up ELSE p_moved_up END,
        trust_down = p.trust_down + CASE WHEN v_previous IS NULL THEN p_first_down ELSE p_moved_down END
        WHERE p.id = v_id
        RETURNING p.trust_up, p.trust_down, p.changed_xid::text INTO v_up, v_down, v_xid;
    END IF;
    IF p_direction = 'up' AND v_previous = 'down' THEN
      -- Moving to up withdraws what this voter reported against the product.
      DELETE FROM problem_reports r WHERE r.product_id = v_id AND r.voter = p_voter;
    ELSIF p_direction = 'down' AND p_reason_key IS NOT NULL THEN
      INSERT INTO problem_reports (product_id, problem_key, voter, summary, reported_at)
        VALUES (v_id, p_reason_key, p_voter, p_reason_summary, p_now)
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN QUERY SELECT 'cast'::text, v_id, NULL::timestamptz, v_previous, v_up, v_down, v_xid;
  END
  $fn$;
