/**
 * Search's routines (packages/domain/src/search.ts says what a word matches; ../search.ts builds the
 * queries): accents folded, the text of a product that is searched (at most SEARCH_TEXT_LIMIT
 * characters), and its weighted vector, English stems and plain words, by field. The vectors are
 * stored (product_search): a change here rewrites them.
 */
import { SEARCH_TEXT_LIMIT } from "@productdir/domain"
import { fn } from "./Routine.ts"

/** unaccent() is STABLE (it reads its dictionary by name): an index needs an IMMUTABLE wrapper naming it. */
export const unaccent = fn({
  name: "productdir_unaccent",
  args: "text",
  returns: "text",
  attributes: "LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT",
  body: `
  SELECT public.unaccent('public.unaccent'::regdictionary, $1)
`,
  rewrites: ["search vectors"]
})

export const searchBody = fn({
  name: "productdir_search_body",
  args: "content jsonb",
  returns: "text",
  attributes: "LANGUAGE sql IMMUTABLE PARALLEL SAFE",
  body: `
  SELECT left(concat_ws(' ', content->>'ai_summary',
    (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'key_features') x),
    (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'ai_features') x),
    (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'recommended_for') x),
    (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'ai_optimization'->'use_cases') x)
  ), ${SEARCH_TEXT_LIMIT})
`,
  rewrites: ["search vectors"]
})

export const searchVector = fn({
  name: "productdir_search_vector",
  args: "p_name text, p_category text, p_body text",
  returns: "tsvector",
  attributes: "LANGUAGE sql IMMUTABLE PARALLEL SAFE",
  body: `
  SELECT setweight(to_tsvector('english', productdir_unaccent(coalesce(p_name, ''))), 'A')
      || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_name, ''))), 'A')
      || setweight(to_tsvector('english', productdir_unaccent(coalesce(p_category, ''))), 'B')
      || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_category, ''))), 'B')
      || setweight(to_tsvector('english', productdir_unaccent(coalesce(p_body, ''))), 'C')
      || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_body, ''))), 'C')
`,
  rewrites: ["search vectors"]
})
