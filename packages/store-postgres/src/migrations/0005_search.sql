-- Migration 0005_search, frozen: the SQL it ran when it shipped, whatever the code says today. The
-- functions and views the service runs now are routines (../routines/), installed at start.
-- Search that finds what agents mean (packages/domain/src/search.ts, ./search.ts): English stems and
-- plain words, accents folded, weighted by field; a vocabulary of the catalog's words for typos.

CREATE EXTENSION IF NOT EXISTS unaccent;

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE FUNCTION productdir_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $fn$
    SELECT public.unaccent('public.unaccent'::regdictionary, $1)
  $fn$;

CREATE FUNCTION productdir_search_vector(p_name text, p_category text, p_body text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT setweight(to_tsvector('english', productdir_unaccent(coalesce(p_name, ''))), 'A')
        || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_name, ''))), 'A')
        || setweight(to_tsvector('english', productdir_unaccent(coalesce(p_category, ''))), 'B')
        || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_category, ''))), 'B')
        || setweight(to_tsvector('english', productdir_unaccent(coalesce(p_body, ''))), 'C')
        || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_body, ''))), 'C')
  $fn$;

CREATE FUNCTION productdir_search_body(content jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT left(concat_ws(' ', content->>'ai_summary',
      (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'key_features') x),
      (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'ai_features') x),
      (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'recommended_for') x),
      (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'ai_optimization'->'use_cases') x)
    ), 20000)
  $fn$;

UPDATE products SET search = productdir_search_vector(name, category, productdir_search_body(content));

CREATE TABLE search_words (word text COLLATE "C" PRIMARY KEY);

CREATE INDEX search_words_trigrams ON search_words USING gist (word gist_trgm_ops);

INSERT INTO search_words (word)
  SELECT DISTINCT w FROM products, unnest(tsvector_to_array(to_tsvector('simple',
    productdir_unaccent(concat_ws(' ', name, category, productdir_search_body(content)))))) AS w
  ON CONFLICT DO NOTHING;

DROP INDEX products_by_category;

CREATE INDEX products_by_category ON products (lower(category)) WHERE removed_at IS NULL;
