-- Migration 0012_search_lists, frozen: the SQL it ran when it shipped, whatever the code says today. The
-- functions and views the service runs now are routines (../routines/), installed at start.
-- Search at a million products (../searchLists.ts): ranking every product that has a common word reads
-- hundreds of thousands of vectors (4 s for a word in 73 % of products). These tables hold, per common
-- lexeme and category, the products that score best for it alone, so that a search ranks a few hundred
-- of them instead. They are built in the background from product_search (empty until then: searches
-- rank every match, as before) and rebuilt when they are old and the catalog has changed.

CREATE TABLE search_lexemes (lexeme text COLLATE "C" PRIMARY KEY, df integer NOT NULL);

CREATE TABLE search_lists (
    lexeme       text COLLATE "C" NOT NULL,
    category_key text NOT NULL,
    product_ids  uuid[] NOT NULL,
    scores       real[] NOT NULL,
    trusts       smallint[] NOT NULL,
    PRIMARY KEY (lexeme, category_key)
  );

CREATE TABLE search_lists_state (
    only_row       boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    built_xid      xid8,
    built_at       timestamptz,
    min_df         integer,
    depth          integer,
    products       bigint,
    building_since timestamptz
  );

INSERT INTO search_lists_state (only_row) VALUES (true);
