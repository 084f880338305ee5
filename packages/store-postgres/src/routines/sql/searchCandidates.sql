-- The candidates of a first page by relevance on a large catalog (../searchLists.ts says what they are and
-- why), as one routine, so that PostgreSQL plans the statement once a session: as a statement bound afresh
-- each search, it was planned at every bind (PostgreSQL kept choosing a custom plan for it): 1.72 ms of
-- planning for 0.85 ms of running, a fifth of a search's PostgreSQL time at a million products
-- (docs/benchmarks.md). Its plan is the generic one: the statement's shape does not depend on the values.
-- The tunables come as arguments, so that their one source stays ../searchLists.ts.

-- routine: productdir_search_candidates
DROP FUNCTION IF EXISTS productdir_search_candidates(integer, text, text[], text, integer, integer, integer, integer, integer, integer);

CREATE OR REPLACE FUNCTION productdir_search_candidates(p_format integer, p_category text, p_typed text[], p_words text[], p_limit integer, p_kept integer, p_list_depth integer, p_completions_max integer, p_rare_max integer, p_lists_from integer) RETURNS TABLE (usable boolean, candidates text[], built_at timestamptz, built_format smallint, with_starts boolean, changed boolean, products float8)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    WITH st AS (
      SELECT built_xid, built_at, min_df, starts_xid IS NOT DISTINCT FROM built_xid AS with_starts
      FROM search_lists_state WHERE built_xid IS NOT NULL AND built_format = p_format
    ),
    starts AS (
      SELECT t.i, u.p, coalesce(k.listed, c.completions) AS completions, coalesce(k.listed_dfs, c.dfs) AS dfs,
        coalesce(k.completions, cardinality(c.completions)) AS completion_count,
      -- The start's best name matches among its rare completions (one range of search_names' index), by the
      -- sum of their scores: a product's rank adds up the scores of every completion it has (ts_rank, calc_rank_or).
      CASE WHEN k.prefix IS NOT NULL THEN k.named ELSE ARRAY(
        SELECT n.product_id FROM search_names n
        WHERE n.lexeme >= u.p AND n.lexeme < u.p || chr(1114111)
          AND (p_category::text IS NULL OR n.category_key = lower(p_category::text))
        GROUP BY n.product_id
        ORDER BY sum(n.score::float8) DESC, max(n.trust) DESC, n.product_id
        LIMIT p_list_depth
      ) END AS named
      -- The words searched as starts ('' beside the others), with their places among the query's words.
      FROM (SELECT * FROM unnest(p_typed) WITH ORDINALITY AS t(w, i) WHERE t.w <> '') AS t,
        LATERAL (SELECT productdir_unaccent(t.w) AS p) AS u
      -- A start with many name matches was searched when the lists were built (search_starts): its best name matches,
      -- its completions' count and its common completions, one row read. The page needs fewer than it keeps.
      LEFT JOIN LATERAL (
        SELECT k.* FROM search_starts k, st
        WHERE st.with_starts AND p_limit < p_list_depth
          AND k.prefix = u.p AND k.category_key = coalesce(lower(p_category::text), '')
      ) AS k ON true,
      -- Its completions with their counts, from the one range (not a lookup of each: thousands for a start of brand
      -- words). A kept start's rare ones are not needed: its name matches fill the page, and stand for them.
      LATERAL (
        SELECT coalesce(array_agg(l.lexeme), '{}') AS completions, coalesce(array_agg(l.df), '{}') AS dfs FROM (
          SELECT l.lexeme, l.df FROM search_lexemes l
          WHERE k.prefix IS NULL AND l.lexeme >= u.p AND l.lexeme < u.p || chr(1114111) LIMIT p_completions_max + 1
        ) AS l
      ) AS c
    ),
    -- Each lexeme with the query word it stands for (its stem, a typo's fix, a start's completion; i: the word's place).
    -- A start whose name matches fill more than the page is searched by them (named): its rare completions are not
    -- matched by the GIN index (tens of thousands of products' vectors for a start of many brand words).
    word_items AS (
      SELECT w.i, e AS lexeme, coalesce((SELECT l.df FROM search_lexemes l WHERE l.lexeme = e), 0) AS df, false AS named
      FROM unnest(p_words) WITH ORDINALITY AS w(txt, i), unnest(tsvector_to_array(to_tsvector('english', productdir_unaccent(w.txt)))) AS e
      UNION ALL SELECT starts.i, x.lexeme, x.df, cardinality(named) > p_limit FROM starts, unnest(completions, dfs) AS x(lexeme, df)
    ),
    -- words: the query words a lexeme stands for, a bit each (at most eight words: MAX_QUERY_WORDS).
    items AS (
      SELECT lexeme, max(df) AS df, bool_and(named) AS named, bit_or(1 << (i::int - 1)) AS words FROM word_items GROUP BY lexeme
    ),
    lx AS (SELECT i.lexeme, i.df, i.df > st.min_df AS listed, i.named, i.words FROM items i CROSS JOIN st),
    plan AS (
      SELECT count(*) FILTER (WHERE listed) AS listed,
             coalesce(sum(df) FILTER (WHERE NOT listed AND NOT named), 0) AS rare_df,
             (SELECT count(*) FROM starts WHERE cardinality(named) > p_limit) AS named
      FROM lx
    ),
    usable AS (
      SELECT EXISTS (SELECT 1 FROM st) AND (p.listed > 0 OR p.named > 0) AND p.rare_df <= p_rare_max
         AND NOT EXISTS (SELECT 1 FROM starts WHERE completion_count > p_completions_max) AS ok,
         p.listed
      FROM plan p
    ),
    slice AS (
      SELECT greatest(p_limit + 1, least(p_list_depth, 2 * p_list_depth / greatest(usable.listed, 1))) AS size FROM usable
    ),
    best AS (
      SELECT lx.lexeme, lx.words, x.id, x.score::float8 AS score FROM lx, usable, slice, LATERAL (
        SELECT e.id, e.score FROM search_lists sl, unnest(sl.product_ids, sl.scores, sl.trusts) AS e(id, score, trust)
        -- Without a category, the best of every category's (key ''): one row a lexeme, not one a category.
        WHERE sl.lexeme = lx.lexeme AND sl.category_key = coalesce(lower(p_category::text), '')
        ORDER BY e.score DESC, e.trust DESC, e.id
        LIMIT slice.size
      ) AS x
      WHERE usable.ok AND lx.listed
    ),
    -- A product missing from a lexeme's slice has it with at most the slice's last score; from a slice shorter than
    -- asked for (the whole list, which holds every product with the lexeme), it does not have it.
    bounds AS MATERIALIZED (
      SELECT lexeme, CASE WHEN count(*) < (SELECT size FROM slice) THEN 0 ELSE min(score) END AS bound FROM best GROUP BY lexeme
    ),
    -- A product's rank counts the query's words it has before their scores (the domain's rule, ../search.ts), so its
    -- sums here do too: a word it has is worth WORD, more than every score together. What it is known to score: the
    -- words of the slices it is in, and their scores; its upper bound adds the bounds of the lists it is missing from,
    -- but no word: a word whose best products it is not among is taken to be one it lacks. Counting each such word as
    -- one it may have kept every product with one word of two (at a million products, ranking 400 candidates for
    -- random pairs of words: 47 searches/s, not 150; docs/search.md says what this misses).
    -- The words it is known to have: the bits of its lexemes' words together, counted (one aggregate: a join of each
    -- lexeme to its words and a count of distinct ones cost pairs of words 2 ms a search at a million products).
    in_slices AS (
      SELECT b.id, sum(b.score) AS score, sum(d.bound) AS present, bit_count(bit_or(b.words)::bit(32)) AS words
      FROM best b JOIN bounds d ON d.lexeme = b.lexeme GROUP BY b.id
    ),
    scored AS (
      SELECT s.id, {{WORD}} * s.words + s.score AS known,
             {{WORD}} * s.words + s.score + (SELECT coalesce(sum(bound), 0) FROM bounds) - s.present AS upper
      FROM in_slices s
    ),
    -- The page's last place scores at least this much: a product that cannot reach it is not ranked. Of the
    -- rest, the best 400 by what they are known to score (a start with a hundred common completions has
    -- thousands whose bounds reach the page: their vectors are not all read); 200 for a query with a word
    -- being typed, whose best name matches are ranked beside them (each candidate is two rows read at random).
    cut AS (SELECT known FROM scored ORDER BY known DESC OFFSET p_limit LIMIT 1),
    kept AS (
      SELECT id FROM scored WHERE upper >= coalesce((SELECT known FROM cut), 0) - 0.0001
      ORDER BY known DESC, upper DESC, id LIMIT p_kept
    ),
    rare AS (
      SELECT s.product_id AS id FROM product_search s, usable
      WHERE usable.ok AND EXISTS (SELECT 1 FROM lx WHERE NOT listed AND NOT named)
        -- The category as a filter, not an index: the rare matches are few, the category's rows many.
        AND (p_category::text IS NULL OR (s.category_key || '') = lower(p_category::text))
        AND s.search @@ (SELECT string_agg(quote_literal(lexeme), ' | ')::tsquery FROM lx WHERE NOT listed AND NOT named)
    ),
    names AS (SELECT unnest(named) AS id FROM starts, usable WHERE usable.ok AND cardinality(named) > p_limit)
    SELECT (SELECT ok FROM usable) AS usable,
           (SELECT array_agg(DISTINCT id) FROM (SELECT id FROM kept UNION ALL SELECT id FROM rare UNION ALL SELECT id FROM names) AS c)::text[] AS candidates,
           (SELECT built_at FROM search_lists_state) AS built_at,
           (SELECT built_format FROM search_lists_state) AS built_format,
           (SELECT starts_xid IS NOT DISTINCT FROM built_xid FROM search_lists_state) AS with_starts,
           -- A scalar bound, so that the index on changed_xid answers (a join to st scanned every product).
           EXISTS (SELECT 1 FROM products WHERE changed_xid > (SELECT built_xid FROM st)) AS changed,
           -- The planner's count, or a bounded count where the table was never analyzed (reltuples -1).
           (SELECT CASE WHEN reltuples >= 0 THEN reltuples
                        ELSE (SELECT count(*) FROM (SELECT 1 FROM product_search LIMIT p_lists_from) AS x) END
            FROM pg_class WHERE oid = 'product_search'::regclass)::float8 AS products;
END
$fn$;
