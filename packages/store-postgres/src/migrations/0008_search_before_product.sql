-- Migration 0008_search_before_product, frozen: the SQL it ran when it shipped, whatever the code says today. The
-- functions and views the service runs now are routines (../routines/), installed at start.
-- A new product's search vector is written before its row (SqlCatalogStore.upsertRun), so that the
-- costly part of an import batch runs before the slug lock and two batches overlap; the reference
-- to the product is checked when the transaction commits.

ALTER TABLE product_search ALTER CONSTRAINT product_search_product_id_fkey DEFERRABLE INITIALLY DEFERRED;
