-- Migration 0013_search_names, frozen: the SQL it ran when it shipped, whatever the code says today.
-- Search at a million products (../searchLists.ts), the start of a word: a start such as "clou" is
-- the start of thousands of rare words (brand words in names share the common words' syllables), and
-- ranking every product that has one read tens of thousands of vectors (6.5 s at the worst). This table
-- holds, for every rare lexeme (not listed in search_lists) that a product has in its name, the
-- product, its score for that lexeme alone, its category and trust (as of the build): the best name
-- matches of a start are then one range of this index, read without the table (the columns are
-- included). Built beside the lists; empty until the first build. The lists are used again once built
-- in the new form (`built_format` 2: these, and every category's best under the key ''); until then
-- searches rank every match, as before the first build, and the first search starts the build.

CREATE TABLE search_names (
    lexeme       text COLLATE "C" NOT NULL,
    product_id   uuid NOT NULL,
    score        real NOT NULL,
    trust        smallint NOT NULL,
    category_key text NOT NULL,
    PRIMARY KEY (lexeme, product_id) INCLUDE (score, trust, category_key)
  );

ALTER TABLE search_lists_state ADD COLUMN built_format smallint NOT NULL DEFAULT 1;
