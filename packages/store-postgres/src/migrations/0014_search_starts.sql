-- Migration 0014_search_starts, frozen: the SQL it ran when it shipped, whatever the code says today.
-- Search at a million products (../searchLists.ts), the start of a word: a start such as "grou" has
-- thousands of completions and the names of thousands of products, and finding its best name matches
-- (search_names, one range of its index grouped by product) took 30-40 ms of the search's 50. This
-- table holds, for each start whose name matches are that many (in every category, key '', and in a
-- category that has that many of them), what the search would find: its best name matches, its
-- completions' count and its common (listed) completions. Built beside the lists; read only when it
-- was built with them (search_lists_state.starts_xid = built_xid), else the start is searched as
-- before, from the ranges.

CREATE TABLE search_starts (
    prefix       text COLLATE "C" NOT NULL,
    category_key text NOT NULL,
    named        uuid[] NOT NULL,
    completions  integer NOT NULL,
    listed       text[] NOT NULL,
    listed_dfs   integer[] NOT NULL,
    PRIMARY KEY (prefix, category_key)
  );

ALTER TABLE search_lists_state ADD COLUMN starts_xid xid8;
