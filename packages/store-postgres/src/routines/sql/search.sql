-- Search's routines (packages/domain/src/record/search.ts says what a word matches; ../search.ts builds the
-- queries): accents folded, the text of a product that is searched (at most SEARCH_TEXT_LIMIT
-- characters), and its weighted vector, English stems and plain words, by field. The vectors are
-- stored (product_search): a change here rewrites them.

-- unaccent() is STABLE (it reads its dictionary by name): an index needs an IMMUTABLE wrapper naming it.
-- routine: productdir_unaccent (rewrites search vectors)
CREATE OR REPLACE FUNCTION productdir_unaccent(text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $fn$
  SELECT public.unaccent('public.unaccent'::regdictionary, $1)
$fn$;

-- routine: productdir_search_body (rewrites search vectors)
CREATE OR REPLACE FUNCTION productdir_search_body(content jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT left(concat_ws(' ', content->>'ai_summary',
    (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'key_features') x),
    (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'ai_features') x),
    (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'recommended_for') x),
    (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'ai_optimization'->'use_cases') x)
  ), {{SEARCH_TEXT_LIMIT}})
$fn$;

-- routine: productdir_search_vector (rewrites search vectors)
CREATE OR REPLACE FUNCTION productdir_search_vector(p_name text, p_category text, p_body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT setweight(to_tsvector('english', productdir_unaccent(coalesce(p_name, ''))), 'A')
      || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_name, ''))), 'A')
      || setweight(to_tsvector('english', productdir_unaccent(coalesce(p_category, ''))), 'B')
      || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_category, ''))), 'B')
      || setweight(to_tsvector('english', productdir_unaccent(coalesce(p_body, ''))), 'C')
      || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_body, ''))), 'C')
$fn$;

-- A lexeme's score in a vector alone, from the weights of its positions in order: ts_rank's formula
-- for a one-word query (calc_rank_or in PostgreSQL's tsrank.c, in single precision as there), with the
-- search's weights (RANK_WEIGHTS: D 0.1, C 0.2, B 0.4, A 1.0). The search lists are ordered by it.
-- routine: productdir_lexeme_score
CREATE OR REPLACE FUNCTION productdir_lexeme_score(weights text[]) RETURNS real
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $fn$
DECLARE
  w real;
  resj real := 0;
  wjm real := -1;
  jm integer := 0;
BEGIN
  FOR j IN 1..coalesce(array_length(weights, 1), 0) LOOP
    w := CASE weights[j] WHEN 'A' THEN 1.0 WHEN 'B' THEN 0.4 WHEN 'C' THEN 0.2 ELSE 0.1 END;
    resj := resj + w / (j * j)::real;
    IF w > wjm THEN wjm := w; jm := j; END IF;
  END LOOP;
  RETURN ((wjm + resj - wjm / (jm * jm)::real)::float8 / 1.64493406685)::real;
END
$fn$;

-- One category's search lists (migration 0012, ../searchLists.ts): for every lexeme that more than
-- p_min_df products have, the category's p_depth best products by the lexeme's score, then trust,
-- then id; and, in a second scan, its products' names' other lexemes with their scores (search_names,
-- migration 0013: the start of a word's candidates). Replaces what the category had; the number of
-- lists written.
-- routine: productdir_build_search_lists
CREATE OR REPLACE FUNCTION productdir_build_search_lists(p_category text, p_min_df integer, p_depth integer) RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
  n integer;
BEGIN
  PERFORM set_config('work_mem', '128MB', true);
  DELETE FROM search_lists WHERE category_key = p_category;
  INSERT INTO search_lists (lexeme, category_key, product_ids, scores, trusts)
  SELECT lexeme, p_category, array_agg(product_id ORDER BY rn), array_agg(score ORDER BY rn), array_agg(trust ORDER BY rn)
  FROM (
    SELECT u.lexeme, s.product_id, x.score, p.trust_score AS trust,
           row_number() OVER (PARTITION BY u.lexeme ORDER BY x.score DESC, p.trust_score DESC, s.product_id) AS rn
    FROM product_search s
    JOIN products p ON p.id = s.product_id AND p.removed_at IS NULL
    CROSS JOIN LATERAL unnest(s.search) AS u
    CROSS JOIN LATERAL (SELECT productdir_lexeme_score(u.weights) AS score) AS x
    WHERE s.category_key = p_category
      AND u.lexeme IN (SELECT l.lexeme FROM search_lexemes l WHERE l.df > p_min_df)
  ) AS ranked
  WHERE rn <= p_depth
  GROUP BY lexeme;
  GET DIAGNOSTICS n = ROW_COUNT;
  -- The names' other lexemes: a second scan, streamed (a name has a few words; the lists' lexemes are most of a vector's).
  DELETE FROM search_names WHERE category_key = p_category;
  INSERT INTO search_names (lexeme, product_id, score, trust, category_key)
  SELECT u.lexeme, s.product_id, productdir_lexeme_score(u.weights), p.trust_score, p_category
  FROM product_search s
  JOIN products p ON p.id = s.product_id AND p.removed_at IS NULL
  CROSS JOIN LATERAL unnest(s.search) AS u
  WHERE s.category_key = p_category AND 'A' = ANY(u.weights)
    AND u.lexeme NOT IN (SELECT l.lexeme FROM search_lexemes l WHERE l.df > p_min_df);
  RETURN n;
END
$fn$;

-- The starts of words worth keeping (migration 0014, ../searchLists.ts): every start of p_min_length
-- letters or more whose name matches (search_names) are more than p_min_products products, in every
-- category (key '') and in each category that has that many; with what the search would find for it
-- from the ranges: its p_depth best name matches (by the sum of their completions' scores, then trust,
-- then id), its completions' count (up to p_max_completions + 1) and its completions that more than
-- p_min_df products have, with their counts. A length at a time: a start of one more letter is kept only
-- where the one before it was. Replaces what was there; the number of rows written.
-- routine: productdir_build_search_starts
CREATE OR REPLACE FUNCTION productdir_build_search_starts(p_min_length integer, p_min_products integer, p_depth integer, p_min_df integer, p_max_completions integer) RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
  len integer := p_min_length;
  added integer;
  n integer := 0;
BEGIN
  PERFORM set_config('work_mem', '128MB', true);
  DELETE FROM search_starts;
  LOOP
    INSERT INTO search_starts (prefix, category_key, named, completions, listed, listed_dfs)
    WITH g AS (
      -- A product's score for a start: the sum of its completions' (in float8: a few reals sum exactly, in any order).
      SELECT left(s.lexeme, len) AS prefix, s.product_id, s.category_key, sum(s.score::float8) AS score, max(s.trust) AS trust
      FROM search_names s
      WHERE length(s.lexeme) >= len
        AND (len = p_min_length OR left(s.lexeme, len - 1) IN (
          SELECT x.prefix FROM search_starts x WHERE x.category_key = '' AND length(x.prefix) = len - 1))
      GROUP BY 1, 2, 3
    ),
    ranked AS (
      SELECT g.*,
             count(*) OVER (PARTITION BY prefix) AS in_all,
             row_number() OVER (PARTITION BY prefix ORDER BY score DESC, trust DESC, product_id) AS rank_all,
             count(*) OVER (PARTITION BY prefix, category_key) AS in_category,
             row_number() OVER (PARTITION BY prefix, category_key ORDER BY score DESC, trust DESC, product_id) AS rank_category
      FROM g
    )
    SELECT prefix, '', array_agg(product_id ORDER BY rank_all), 0, '{}'::text[], '{}'::integer[]
    FROM ranked WHERE in_all > p_min_products AND rank_all <= p_depth GROUP BY prefix
    UNION ALL
    SELECT prefix, category_key, array_agg(product_id ORDER BY rank_category), 0, '{}'::text[], '{}'::integer[]
    FROM ranked WHERE in_category > p_min_products AND rank_category <= p_depth GROUP BY prefix, category_key;
    GET DIAGNOSTICS added = ROW_COUNT;
    EXIT WHEN added = 0;
    n := n + added;
    len := len + 1;
  END LOOP;
  UPDATE search_starts t SET completions = c.completions, listed = c.listed, listed_dfs = c.dfs
  FROM (SELECT DISTINCT prefix FROM search_starts) AS p,
  LATERAL (
    SELECT count(*)::integer AS completions,
           coalesce(array_agg(l.lexeme ORDER BY l.lexeme) FILTER (WHERE l.df > p_min_df), '{}') AS listed,
           coalesce(array_agg(l.df ORDER BY l.lexeme) FILTER (WHERE l.df > p_min_df), '{}') AS dfs
    FROM (
      SELECT l.lexeme, l.df FROM search_lexemes l
      WHERE l.lexeme >= p.prefix AND l.lexeme < p.prefix || chr(1114111) LIMIT p_max_completions + 1
    ) AS l
  ) AS c
  WHERE t.prefix = p.prefix;
  RETURN n;
END
$fn$;
