/**
 * What the change feed reads (../ChangeFeed.ts): every write of a product row stamps the transaction
 * it came in, whoever writes it (votes, imports, prunes, repairs, revocations, an operator's hand edit),
 * and a problem report that comes, goes or is marked stamps its product, whose reads it is part of.
 * The triggers that call these are schema (migration 3).
 */
import { fn } from "./Routine.ts"

export const stampChange = fn({
  name: "productdir_stamp_change",
  args: "",
  returns: "trigger",
  attributes: "LANGUAGE plpgsql",
  body: `
BEGIN
  NEW.changed_xid := pg_current_xact_id();
  RETURN NEW;
END
`
})

export const reportChanged = fn({
  name: "productdir_report_changed",
  args: "",
  returns: "trigger",
  attributes: "LANGUAGE plpgsql",
  body: `
BEGIN
  UPDATE products SET changed_xid = pg_current_xact_id()
  WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.product_id ELSE NEW.product_id END;
  RETURN NULL;
END
`
})
