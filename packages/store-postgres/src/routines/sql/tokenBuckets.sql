-- Token buckets (packages/domain/src/ports/RateLimits.ts) shared by every process on the database: refills
-- each bucket of `keys` (creating it full), locking them in key order so concurrent takers never
-- deadlock, and takes one token from each only if every one holds a token. Returns each bucket's
-- tokens before the take; the caller decides from them with the domain's `decide`, the same
-- arithmetic the in-process buckets use. One call, one round trip, one transaction.

-- routine: productdir_take_tokens
CREATE OR REPLACE FUNCTION productdir_take_tokens(p_keys text[], p_max float8[], p_window_ms float8[], p_now timestamptz) RETURNS TABLE (key text, tokens float8)
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
