-- Migration 0003_change_feed, frozen: the SQL it ran when it shipped, whatever the code says today. The
-- functions and views the service runs now are routines (../routines/), installed at start.
-- The change feed: every write of a product stamps the transaction it came in.

ALTER TABLE products ADD COLUMN changed_xid xid8 NOT NULL DEFAULT '0';

CREATE INDEX products_by_change ON products (changed_xid);

CREATE FUNCTION productdir_stamp_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    NEW.changed_xid := pg_current_xact_id();
    RETURN NEW;
  END
  $fn$;

CREATE TRIGGER products_stamp_change BEFORE INSERT OR UPDATE ON products FOR EACH ROW EXECUTE FUNCTION productdir_stamp_change();

CREATE FUNCTION productdir_report_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    UPDATE products SET changed_xid = pg_current_xact_id()
    WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.product_id ELSE NEW.product_id END;
    RETURN NULL;
  END
  $fn$;

CREATE TRIGGER problem_reports_changed AFTER INSERT OR UPDATE OR DELETE ON problem_reports FOR EACH ROW EXECUTE FUNCTION productdir_report_changed();
