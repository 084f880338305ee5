-- Migration 0007_search_apart, frozen: the SQL it ran when it shipped, whatever the code says today. The
-- functions and views the service runs now are routines (../routines/), installed at start.
-- A product's search vector in a table of its own. Every vote rewrites its product's row, and the
-- trust index makes that a non-HOT update, which adds the row to every index of the table again: in
-- products, the GIN index took the vector's hundreds of lexemes on every vote (the products of a
-- benchmark catalog: 0 HOT updates in 826,000, a 118 MB GIN index for 20,000 products). Apart, the
-- vector and its index change only when the product's text does. The category comes along, so a
-- search within a category is still one bitmap AND of two indexes of one table (without it, 1M
-- products: 2.2 s, the category's 100,000 rows probed one by one; with it, 56 ms).

CREATE TABLE product_search (
    product_id   uuid PRIMARY KEY REFERENCES products (id) ON DELETE CASCADE,
    category_key text NOT NULL,
    search       tsvector NOT NULL
  );

INSERT INTO product_search (product_id, category_key, search) SELECT id, lower(category), search FROM products;

CREATE INDEX product_search_vector ON product_search USING gin (search);

CREATE INDEX product_search_by_category ON product_search (category_key);

ALTER TABLE products DROP COLUMN search;
