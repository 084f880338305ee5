-- Migration 0018_category_listings, frozen: the SQL it ran when it shipped, whatever the code says today.
-- A category's listing in each order, from an index of its own: by trust, by name, by update. With the category
-- index alone, the planner walked the trust index filtering by category, and a category no product has read every
-- row (100,000 rows, 316 ms a page at 100,000 products): a page costs what a page holds now, whatever the category.

CREATE INDEX products_category_by_trust ON products (lower(category), trust_score DESC, id) WHERE removed_at IS NULL;

CREATE INDEX products_category_by_name ON products (lower(category), name_key, id) WHERE removed_at IS NULL;

CREATE INDEX products_category_by_updated ON products (lower(category), updated_at DESC, id) WHERE removed_at IS NULL;
