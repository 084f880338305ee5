-- What a search answer reads of its candidates (packages/domain/src/request/ProductDescription.ts says what and how
-- much), as routines: planned once a session (PL/pgSQL keeps its plans), not at every search. As a statement bound
-- afresh each search it was planned each time: 5 ms of planning (its subqueries) for 2 ms of running, at a million
-- products.

-- An array of texts in a record, joined by spaces; NULL when there is none (which concat_ws leaves out, as the
-- domain's join of an empty array adds nothing).
-- routine: productdir_texts
CREATE OR REPLACE FUNCTION productdir_texts(p_array jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT string_agg(t.x, ' ' ORDER BY t.i) FROM jsonb_array_elements_text(p_array) WITH ORDINALITY AS t(x, i)
$fn$;

-- Its columns are named as the domain's ProductDescription names its fields: the rows are descriptions as they come.
-- routine: productdir_describe
DROP FUNCTION IF EXISTS productdir_describe(uuid[]);

CREATE OR REPLACE FUNCTION productdir_describe(p_ids uuid[])
RETURNS TABLE (id uuid, name text, category text, summary text, features text, uses text, audience text, benefits text,
  "position" text, against text, "pricingModel" text, prices text[])
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  RETURN QUERY
  SELECT p.id, p.content->>'name', p.content->>'category',
    left(p.content->>'ai_summary', {{DESCRIPTION_FIELD_LIMIT}}),
    left(concat_ws(' ', productdir_texts(p.content->'key_features'), productdir_texts(p.content->'ai_features')), {{DESCRIPTION_FIELD_LIMIT}}),
    left(concat_ws(' ', productdir_texts(p.content#>'{ai_optimization,use_cases}'), productdir_texts(p.content->'recommended_for')), {{DESCRIPTION_FIELD_LIMIT}}),
    left(p.content#>>'{ai_optimization,target_audience}', {{DESCRIPTION_FIELD_LIMIT}}),
    left(p.content#>>'{ai_optimization,ai_benefits}', {{DESCRIPTION_FIELD_LIMIT}}),
    left(p.content#>>'{ai_optimization,competitive_position}', {{DESCRIPTION_FIELD_LIMIT}}),
    left(concat_ws(' ', productdir_texts(p.content->'not_recommended_for'), p.content#>>'{ai_optimization,not_recommended_for}'), {{DESCRIPTION_FIELD_LIMIT}}),
    p.content#>>'{pricing,model}',
    ARRAY(SELECT x.plan->>'price' FROM jsonb_array_elements(p.content#>'{pricing,plans}') WITH ORDINALITY AS x(plan, i)
          ORDER BY x.i LIMIT {{MAX_PLANS}})
  FROM products p WHERE p.removed_at IS NULL AND p.id = ANY(p_ids);
END
$fn$;
