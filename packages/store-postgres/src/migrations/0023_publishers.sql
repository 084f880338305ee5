-- Migration 0023_publishers: claims of domains and the publishers who proved them (docs/decisions.md, "Publishers").
-- A domain has at most one verified publisher (the partial unique index): two proofs of one domain race for it, and
-- the second is refused. A key is kept as its SHA-256, as agents' are. A verified publisher's proof is read again on a
-- schedule: `failed_checks` in a row (reset by a check that finds it), the last check's time and what it found; three
-- failures in a row suspend it (`suspended_at`: its key stops working, its products' records stay).

CREATE TABLE publishers (
  id          uuid PRIMARY KEY,
  domain      text NOT NULL,
  status      text NOT NULL CHECK (status IN ('pending', 'verified', 'suspended')),
  token       text NOT NULL,
  method      text CHECK (method IN ('http', 'dns')),
  key_hash    text UNIQUE,
  created_at  timestamptz NOT NULL,
  verified_at timestamptz,
  failed_checks integer NOT NULL DEFAULT 0,
  checked_at  timestamptz,
  check_note  text,
  suspended_at timestamptz
);

CREATE UNIQUE INDEX publishers_one_verified ON publishers (domain) WHERE status = 'verified';

-- A publisher's reply to a problem of its product, one per problem (a later one replaces it). Its product is stamped
-- changed as a report's is (productdir_report_changed, migration 0003): every reader hears of it.
CREATE TABLE problem_replies (
  product_id       uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
  problem_id       text NOT NULL,
  text             text NOT NULL,
  publisher_domain text NOT NULL,
  fixed_in_version integer,
  replied_at       timestamptz NOT NULL,
  PRIMARY KEY (product_id, problem_id)
);

-- Why an operator took a product down (productdir-publishers take-down): read with the 410 its reads answer. A prune
-- gives none; bringing the product back (or an import that restores it) clears it.
ALTER TABLE products ADD COLUMN removed_reason text;

-- The publisher whose change is the product's current version (PATCH /products/{id}); an import that writes the
-- record again clears it, and says whose change it wrote over.
ALTER TABLE products ADD COLUMN edited_by text;

-- Every operator's and publisher's action that changes what the directory says or who may say it: appended, never
-- changed (docs/decisions.md, "Publishers"), read newest first, of one subject or all.
CREATE TABLE audit_trail (
  id           bigserial PRIMARY KEY,
  at           timestamptz NOT NULL,
  actor_kind   text NOT NULL CHECK (actor_kind IN ('operator', 'publisher', 'schedule')),
  actor_domain text,
  action       text NOT NULL,
  subject      text NOT NULL,
  reason       text,
  detail       text NOT NULL
);

CREATE INDEX audit_trail_by_subject ON audit_trail (subject, id);

CREATE TRIGGER problem_replies_changed AFTER INSERT OR UPDATE OR DELETE ON problem_replies
  FOR EACH ROW EXECUTE FUNCTION productdir_report_changed();
