-- The vote: one call casts the votes of one product (routines below; SqlVoteLedger.ts groups them
-- and writes the ballots, each one `jsonb` object). One round trip, one transaction, pipelined with
-- other statements on a shared connection.
--
-- For each vote, in order: the tokens of its rate limits (`[{ key, max, window_ms }]`,
-- productdir_take_tokens; refused when a bucket had none: it writes nothing more); the voting
-- agent's standing; the product; the voter's previous vote (read after the product's lock, so it
-- sees every vote committed by whoever held the lock before, and every earlier vote of the call),
-- and then what the vote is, decided here once: `recorded` (a first vote: its direction's counter
-- +1), `unchanged` (the same direction again: nothing moves) or `changed` (the other direction: +1
-- and -1), as packages/domain/src/trust/Vote.ts (voteTransition) states it for every store; and how it
-- counts (packages/domain/src/trust/voteCounting.ts): a changed vote as its first one did; a new one is held
-- when the ballot carries a guard, the voter has no standing (an agent the integrity pass gave
-- standing) and the product's last hour of votes is past the floor plus the factor times what its
-- last week predicts; or the voter has standing, votes against what the product's weighed evidence settled,
-- and the last hour is past the reversal's lower floor plus the same. Only a counted vote moves the counters. Then the ledger row, the product's
-- decayed vote counts (a held vote does not teach the week's), the counters and the problem report.
-- A vote that records or changes something first draws on the ballot's budgets (the per-product
-- budgets of an anonymous client's networks): over one, it is `limited` and writes nothing; a vote
-- sent again unchanged draws on none. Ballot: `{ product_id | slug, voter, agent_id?, direction, at,
-- reason_key?, reason_summary?, network?, guard?: { floor, factor, reversal?: { floor, votes, share } }, budgets?: [{ key, max, window_ms }],
-- weights?: { standing, agent, address } }`: what the vote weighs by its voter's standing when it is cast
-- (packages/domain/src/trust/judgement.ts), kept on its row and summed, counted, into the product's `weight_up`/`weight_down`.
--
-- Locks: buckets first, in key order, then agents (shared, in id order), then the product, as every
-- vote and every revocation takes them: no two calls wait on each other in a cycle.
--
-- productdir_cast_vote and productdir_cast_vote_within, the one-vote calls the service made until it
-- cast votes in groups, are one-vote calls of productdir_cast_votes: the rule is written once, and a
-- process of the previous release, during an upgrade, votes by the same rule as the others.

-- productdir_cast_votes: the votes that arrived while another call was in flight (SqlVoteLedger.ts
-- groups them), cast in one call: one transaction and one commit for all of them, and for each
-- product one lock and one write of its row (its counters, its decayed vote counts, one change-feed
-- stamp), where one call each would commit one by one and queue on a busy product's row lock. Each
-- vote keeps what it would have had alone, in the order given: its own rate-limit refusal, its
-- agent's standing, its outcome against the votes before it (a voter's second ballot in a call sees
-- its first), its budgets, its counting (the burst guard sees the product's earlier votes of the
-- call) and its product's counters as they stood after it. Items: `[{ limits: [{ key, max,
-- window_ms }], ballot }]`. Answer: for each item `n` (1-based), one row of its limits (`outcome`
-- 'allowed' or 'limited', with the buckets' tokens before the take) and, unless limited, one row of
-- its cast (as productdir_cast_vote answers).
--
-- Locks in the order every vote takes them, so no two calls wait on each other in a cycle: every
-- bucket of the call in key order, every agent in id order (shared), then the products in id order
-- (a vote that names its product by slug has it looked up first). A refusal of one vote (limited,
-- revoked, over a budget, no such product) writes nothing of it and leaves the others as they are;
-- an error fails the call, which writes nothing, and the caller casts each vote alone so that the
-- error stays with its vote.
-- routine: productdir_cast_votes
DROP FUNCTION IF EXISTS productdir_cast_votes(jsonb);

CREATE OR REPLACE FUNCTION productdir_cast_votes(p_items jsonb) RETURNS TABLE (
  n integer, limit_keys text[], limit_tokens float8[],
  outcome text, product_id uuid, removed_at timestamptz, status text, counting text, trust_up bigint, trust_down bigint, xid text,
  budget_keys text[], budget_tokens float8[], weight_up bigint, weight_down bigint, weight integer
)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_count integer := jsonb_array_length(p_items);
  v_i integer;
  v_item integer;
  v_products uuid[];
  v_order integer[];
  v_current uuid;
  v_allowed boolean[] := '{}';
  v_bucket_keys text[];
  v_bucket_tokens float8[];
  v_bucket_taken boolean[];
  v_key text;
  v_at integer;
  v_hold boolean;
  v_ballot jsonb;
  v_keys text[];
  v_tokens float8[];
  v_agent uuid;
  v_voter text;
  v_direction text;
  v_now timestamptz;
  v_guard jsonb;
  v_revoked timestamptz;
  v_standing boolean;
  v_id uuid;
  v_removed timestamptz;
  v_up bigint;
  v_down bigint;
  v_wup bigint;
  v_wdown bigint;
  v_weight integer;
  v_previous_weight integer;
  v_fast float8;
  v_slow float8;
  v_rate_at timestamptz;
  v_decayed_fast float8;
  v_decayed_slow float8;
  v_seconds float8;
  v_previous text;
  v_previous_counting text;
  v_status text;
  v_counting text;
  v_xid text;
  v_moved boolean := false;
  v_budget_keys text[];
  v_budget_tokens float8[];
BEGIN
  -- Every bucket of the group, refilled to the last time the group uses it and locked, in key order, in
  -- one statement (productdir_take_tokens' refill, once per bucket; a bucket new here starts full).
  -- Then each vote, in order, takes a token from each of its buckets if every one holds a token, here
  -- in the call's own copy of them, and the buckets are written back once.
  WITH wanted AS (
    SELECT l->>'key' AS key, max((l->>'max')::float8) AS mx, max((l->>'window_ms')::float8) AS win,
      max((i->'ballot'->>'at')::timestamptz) AS at
    FROM jsonb_array_elements(p_items) AS i, jsonb_array_elements(i->'limits') AS l
    GROUP BY 1
  ), refilled AS (
    INSERT INTO rate_buckets AS b (key, tokens, max_tokens, window_ms, at)
      SELECT w.key, w.mx, w.mx, w.win, w.at FROM wanted AS w ORDER BY w.key
      ON CONFLICT ON CONSTRAINT rate_buckets_pkey DO UPDATE SET
        tokens = least(EXCLUDED.max_tokens,
          b.tokens + greatest(0, extract(epoch FROM EXCLUDED.at - b.at)::float8 * 1000) * EXCLUDED.max_tokens / EXCLUDED.window_ms),
        max_tokens = EXCLUDED.max_tokens,
        window_ms = EXCLUDED.window_ms,
        at = greatest(b.at, EXCLUDED.at)
      RETURNING b.key, b.tokens
  )
  SELECT coalesce(array_agg(r.key), '{}'), coalesce(array_agg(r.tokens), '{}') INTO v_bucket_keys, v_bucket_tokens FROM refilled AS r;
  v_bucket_taken := array_fill(false, ARRAY[greatest(1, cardinality(v_bucket_keys))]);
  FOR v_i IN 1..v_count LOOP
    v_keys := ARRAY(SELECT l->>'key' FROM jsonb_array_elements(coalesce(p_items->(v_i - 1)->'limits', '[]'::jsonb)) AS l);
    v_tokens := '{}';
    v_hold := true;
    FOREACH v_key IN ARRAY v_keys LOOP
      v_at := array_position(v_bucket_keys, v_key);
      v_tokens := v_tokens || v_bucket_tokens[v_at];
      v_hold := v_hold AND v_bucket_tokens[v_at] >= 1;
    END LOOP;
    IF v_hold THEN
      FOREACH v_key IN ARRAY v_keys LOOP
        v_at := array_position(v_bucket_keys, v_key);
        v_bucket_tokens[v_at] := v_bucket_tokens[v_at] - 1;
        v_bucket_taken[v_at] := true;
      END LOOP;
    END IF;
    v_allowed := v_allowed || v_hold;
    RETURN QUERY SELECT v_i, v_keys, v_tokens, CASE WHEN v_hold THEN 'allowed' ELSE 'limited' END, NULL::uuid, NULL::timestamptz,
      NULL::text, NULL::text, NULL::bigint, NULL::bigint, NULL::text, NULL::text[], NULL::float8[], NULL::bigint, NULL::bigint, NULL::integer;
  END LOOP;
  IF true = ANY(v_bucket_taken) THEN
    UPDATE rate_buckets AS b SET tokens = t.tokens
      FROM unnest(v_bucket_keys, v_bucket_tokens, v_bucket_taken) AS t(key, tokens, taken)
      WHERE b.key = t.key AND t.taken;
  END IF;
  -- The group's agents (shared, in id order), then its products (in id order): the order of a lone
  -- vote and of a revocation. A vote naming its product by slug has it looked up first (a slug is
  -- never given to another product); one whose product does not exist is not found.
  PERFORM 1 FROM agents a
    WHERE a.id IN (SELECT (i->'ballot'->>'agent_id')::uuid FROM jsonb_array_elements(p_items) AS i WHERE i->'ballot' ? 'agent_id')
    ORDER BY a.id FOR SHARE;
  v_products := ARRAY(
    SELECT CASE WHEN i->'ballot' ? 'product_id' THEN (i->'ballot'->>'product_id')::uuid
      ELSE (SELECT p.id FROM products p WHERE p.slug = i->'ballot'->>'slug') END
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e(i, k) ORDER BY k);
  -- The votes by product, each product's in the order they came.
  v_order := ARRAY(SELECT u.k FROM unnest(v_products) WITH ORDINALITY AS u(pid, k) ORDER BY u.pid NULLS LAST, u.k);
  FOREACH v_item IN ARRAY v_order LOOP
    IF v_item = v_order[1] OR v_products[v_item] IS DISTINCT FROM v_current THEN
      IF v_moved THEN
        -- One write of the row for the product's votes: the counters and rates as they stand after its last one.
        UPDATE products p SET trust_up = v_up, trust_down = v_down, weight_up = v_wup, weight_down = v_wdown,
          rate_fast = v_fast, rate_slow = v_slow, rate_at = v_rate_at
          WHERE p.id = v_id;
      END IF;
      v_moved := false;
      v_current := v_products[v_item];
      v_id := NULL;
      v_removed := NULL;
      IF v_current IS NOT NULL THEN
        SELECT p.id, p.removed_at, p.trust_up, p.trust_down, p.weight_up, p.weight_down, p.rate_fast, p.rate_slow, p.rate_at
          INTO v_id, v_removed, v_up, v_down, v_wup, v_wdown, v_fast, v_slow, v_rate_at
          FROM products p WHERE p.id = v_current FOR UPDATE;
      END IF;
    END IF;
    v_i := v_item;
    CONTINUE WHEN NOT v_allowed[v_i];
    v_ballot := p_items->(v_i - 1)->'ballot';
    v_agent := (v_ballot->>'agent_id')::uuid;
    v_voter := v_ballot->>'voter';
    v_direction := v_ballot->>'direction';
    v_now := (v_ballot->>'at')::timestamptz;
    v_guard := v_ballot->'guard';
    v_standing := false;
    v_budget_keys := '{}';
    v_budget_tokens := '{}';
    IF v_agent IS NOT NULL THEN
      SELECT a.revoked_at, a.standing_since IS NOT NULL INTO v_revoked, v_standing FROM agents a WHERE a.id = v_agent;
      IF NOT FOUND OR v_revoked IS NOT NULL THEN
        RETURN QUERY SELECT v_i, NULL::text[], NULL::float8[], 'agent_revoked'::text, NULL::uuid, NULL::timestamptz, NULL::text, NULL::text,
          NULL::bigint, NULL::bigint, NULL::text, NULL::text[], NULL::float8[], NULL::bigint, NULL::bigint, NULL::integer;
        CONTINUE;
      END IF;
    END IF;
    IF v_id IS NULL THEN
      RETURN QUERY SELECT v_i, NULL::text[], NULL::float8[], 'not_found'::text, NULL::uuid, NULL::timestamptz, NULL::text, NULL::text,
        NULL::bigint, NULL::bigint, NULL::text, NULL::text[], NULL::float8[], NULL::bigint, NULL::bigint, NULL::integer;
      CONTINUE;
    END IF;
    IF v_removed IS NOT NULL THEN
      RETURN QUERY SELECT v_i, NULL::text[], NULL::float8[], 'removed'::text, v_id, v_removed, NULL::text, NULL::text,
        NULL::bigint, NULL::bigint, NULL::text, NULL::text[], NULL::float8[], NULL::bigint, NULL::bigint, NULL::integer;
      CONTINUE;
    END IF;
    -- Read after the lock and after the group's earlier votes: a voter's second ballot sees its first.
    v_previous := NULL;
    v_previous_counting := NULL;
    v_previous_weight := NULL;
    SELECT v.direction, v.counting, v.weight INTO v_previous, v_previous_counting, v_previous_weight
      FROM votes v WHERE v.product_id = v_id AND v.voter = v_voter;
    -- What the vote weighs: its voter's standing now, as the ballot's weights say (packages/domain/src/trust/judgement.ts;
    -- a ballot of the previous release, during an upgrade, carries none: the weights it would have had).
    v_weight := CASE
      WHEN v_agent IS NULL THEN coalesce((v_ballot->'weights'->>'address')::integer, 10)
      WHEN v_standing THEN coalesce((v_ballot->'weights'->>'standing')::integer, 1000)
      ELSE coalesce((v_ballot->'weights'->>'agent')::integer, 25) END;
    v_status := CASE WHEN v_previous IS NULL THEN 'recorded' WHEN v_previous = v_direction THEN 'unchanged' ELSE 'changed' END;
    IF v_status <> 'unchanged' AND jsonb_array_length(coalesce(v_ballot->'budgets', '[]'::jsonb)) > 0 THEN
      SELECT coalesce(array_agg(t.key), '{}'), coalesce(array_agg(t.tokens), '{}') INTO v_budget_keys, v_budget_tokens
        FROM productdir_take_tokens(
          ARRAY(SELECT b->>'key' FROM jsonb_array_elements(v_ballot->'budgets') WITH ORDINALITY AS e(b, k) ORDER BY k),
          ARRAY(SELECT (b->>'max')::float8 FROM jsonb_array_elements(v_ballot->'budgets') WITH ORDINALITY AS e(b, k) ORDER BY k),
          ARRAY(SELECT (b->>'window_ms')::float8 FROM jsonb_array_elements(v_ballot->'budgets') WITH ORDINALITY AS e(b, k) ORDER BY k),
          v_now) t;
      IF EXISTS (SELECT 1 FROM unnest(v_budget_tokens) AS left_over WHERE left_over < 1) THEN
        RETURN QUERY SELECT v_i, NULL::text[], NULL::float8[], 'limited'::text, v_id, NULL::timestamptz, NULL::text, NULL::text,
          NULL::bigint, NULL::bigint, NULL::text, v_budget_keys, v_budget_tokens,
          NULL::bigint, NULL::bigint, NULL::integer;
        CONTINUE;
      END IF;
    END IF;
    IF v_status = 'recorded' THEN
      -- The product's vote counts, decayed to now (packages/domain/src/trust/voteCounting.ts: decayedRates, isBurst).
      v_seconds := greatest(0, extract(epoch FROM v_now - coalesce(v_rate_at, v_now)));
      v_decayed_fast := v_fast * exp(-v_seconds / 3600);
      v_decayed_slow := v_slow * exp(-v_seconds / 604800);
      -- Held: a voter without standing in a burst; or one with standing reversing what the product's weighed evidence
      -- settled (isReversal: weight_up, weight_down), past the reversal's lower floor (isReversalBurst). A ballot of the previous release,
      -- during an upgrade, carries no reversal: it holds no voter with standing, as that release did not.
      v_counting := CASE
        WHEN v_guard IS NULL THEN 'counted'
        WHEN NOT v_standing
          AND v_decayed_fast + 1 > (v_guard->>'floor')::float8 + (v_guard->>'factor')::float8 * v_decayed_slow * 3600 / 604800
        THEN 'held'
        WHEN v_standing AND v_guard ? 'reversal'
          AND v_wup + v_wdown >= (v_guard->'reversal'->>'votes')::float8 * 1000
          AND CASE WHEN v_direction = 'down' THEN v_wup ELSE v_wdown END >= (v_guard->'reversal'->>'share')::float8 * (v_wup + v_wdown)
          AND v_decayed_fast + 1 > (v_guard->'reversal'->>'floor')::float8 + (v_guard->>'factor')::float8 * v_decayed_slow * 3600 / 604800
        THEN 'held'
        ELSE 'counted' END;
    ELSE
      v_counting := v_previous_counting;
    END IF;
    IF v_status <> 'unchanged' THEN
      -- A changed vote is cast again: it weighs its voter's standing now, and its old weight leaves the evidence.
      INSERT INTO votes AS v (product_id, voter, direction, created_at, updated_at, counting, network, weight)
        VALUES (v_id, v_voter, v_direction, v_now, v_now, v_counting, v_ballot->>'network', v_weight)
        ON CONFLICT (product_id, voter) DO UPDATE SET direction = EXCLUDED.direction, updated_at = EXCLUDED.updated_at,
          weight = EXCLUDED.weight;
      IF v_counting = 'counted' THEN
        v_up := v_up + CASE WHEN v_direction = 'up' THEN 1 WHEN v_status = 'changed' THEN -1 ELSE 0 END;
        v_down := v_down + CASE WHEN v_direction = 'down' THEN 1 WHEN v_status = 'changed' THEN -1 ELSE 0 END;
        v_wup := v_wup + CASE WHEN v_direction = 'up' THEN v_weight WHEN v_status = 'changed' THEN -v_previous_weight ELSE 0 END;
        v_wdown := v_wdown + CASE WHEN v_direction = 'down' THEN v_weight WHEN v_status = 'changed' THEN -v_previous_weight ELSE 0 END;
      END IF;
      IF v_status = 'recorded' THEN
        v_fast := v_decayed_fast + 1;
        v_slow := v_decayed_slow + CASE WHEN v_counting = 'held' THEN 0 ELSE 1 END;
        v_rate_at := v_now;
      END IF;
      v_moved := true;
      v_xid := pg_current_xact_id()::text;
    END IF;
    IF v_direction = 'up' AND v_previous = 'down' THEN
      -- Moving to up withdraws what this voter reported against the product.
      DELETE FROM problem_reports r WHERE r.product_id = v_id AND r.voter = v_voter;
    ELSIF v_direction = 'down' AND v_ballot->>'reason_key' IS NOT NULL THEN
      -- A vote carries one reason: a new one replaces what this voter reported before, so one voter is one
      -- report a product however many reasons it sends (unchanged votes draw on no budget).
      DELETE FROM problem_reports r WHERE r.product_id = v_id AND r.voter = v_voter AND r.problem_key <> v_ballot->>'reason_key';
      INSERT INTO problem_reports (product_id, problem_key, voter, summary, reported_at, network)
        VALUES (v_id, v_ballot->>'reason_key', v_voter, v_ballot->>'reason_summary', v_now, v_ballot->>'network')
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN QUERY SELECT v_i, NULL::text[], NULL::float8[], 'cast'::text, v_id, NULL::timestamptz, v_status, v_counting, v_up, v_down,
      CASE WHEN v_status = 'unchanged' THEN NULL ELSE v_xid END, v_budget_keys, v_budget_tokens, v_wup, v_wdown,
      CASE WHEN v_status = 'unchanged' THEN v_previous_weight ELSE v_weight END;
  END LOOP;
  IF v_moved THEN
    UPDATE products p SET trust_up = v_up, trust_down = v_down, weight_up = v_wup, weight_down = v_wdown,
      rate_fast = v_fast, rate_slow = v_slow, rate_at = v_rate_at
      WHERE p.id = v_id;
  END IF;
END
$fn$;

-- routine: productdir_cast_vote
DROP FUNCTION IF EXISTS productdir_cast_vote(uuid, text, text, uuid, text, timestamptz, integer, integer, integer, integer, text, text);

DROP FUNCTION IF EXISTS productdir_cast_vote(jsonb);

CREATE OR REPLACE FUNCTION productdir_cast_vote(p_ballot jsonb) RETURNS TABLE (outcome text, product_id uuid, removed_at timestamptz, status text, counting text, trust_up bigint, trust_down bigint, xid text, budget_keys text[], budget_tokens float8[], weight_up bigint, weight_down bigint, weight integer)
LANGUAGE sql AS $fn$
  SELECT c.outcome, c.product_id, c.removed_at, c.status, c.counting, c.trust_up, c.trust_down, c.xid, c.budget_keys, c.budget_tokens,
    c.weight_up, c.weight_down, c.weight
  FROM productdir_cast_votes(jsonb_build_array(jsonb_build_object('limits', '[]'::jsonb, 'ballot', p_ballot))) AS c
  WHERE c.limit_keys IS NULL
$fn$;

-- routine: productdir_cast_vote_within
DROP FUNCTION IF EXISTS productdir_cast_vote_within(text[], float8[], float8[], uuid, text, text, uuid, text, timestamptz, integer, integer, integer, integer, text, text);

DROP FUNCTION IF EXISTS productdir_cast_vote_within(jsonb, jsonb);

CREATE OR REPLACE FUNCTION productdir_cast_vote_within(p_limits jsonb, p_ballot jsonb) RETURNS TABLE (
  limit_keys text[], limit_tokens float8[],
  outcome text, product_id uuid, removed_at timestamptz, status text, counting text, trust_up bigint, trust_down bigint, xid text,
  budget_keys text[], budget_tokens float8[], weight_up bigint, weight_down bigint, weight integer
)
LANGUAGE sql AS $fn$
  WITH r AS MATERIALIZED (
    SELECT * FROM productdir_cast_votes(jsonb_build_array(jsonb_build_object('limits', p_limits, 'ballot', p_ballot)))
  )
  SELECT l.limit_keys, l.limit_tokens, coalesce(c.outcome, 'limited'), c.product_id, c.removed_at, c.status, c.counting,
    c.trust_up, c.trust_down, c.xid, c.budget_keys, c.budget_tokens, c.weight_up, c.weight_down, c.weight
  FROM r AS l LEFT JOIN r AS c ON c.limit_keys IS NULL
  WHERE l.limit_keys IS NOT NULL
$fn$;
