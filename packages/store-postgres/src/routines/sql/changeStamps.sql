-- What the change feed reads (../ChangeFeed.ts): every write of a product row stamps the transaction
-- it came in, whoever writes it (votes, imports, prunes, repairs, revocations, an operator's hand edit),
-- and a problem report that comes, goes or is marked stamps its product, whose reads it is part of.
-- The triggers that call these are schema (migration 3).

-- routine: productdir_stamp_change
CREATE OR REPLACE FUNCTION productdir_stamp_change() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.changed_xid := pg_current_xact_id();
  RETURN NEW;
END
$fn$;

-- routine: productdir_report_changed
CREATE OR REPLACE FUNCTION productdir_report_changed() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE products SET changed_xid = pg_current_xact_id()
  WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.product_id ELSE NEW.product_id END;
  RETURN NULL;
END
$fn$;
