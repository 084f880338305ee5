-- Migration 0022_product_versions: the versions a product's changes replaced (docs/decisions.md, "Versions"). The
-- current version stays in products; an upsert that changes a product first copies the row it replaces here, in its
-- transaction, so that every version the directory served can be read again. Versions replaced before this migration
-- ran were not kept: a product's history starts at the version it had then.

CREATE TABLE product_versions (
  product_id    uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
  version       integer NOT NULL,
  content       jsonb NOT NULL,
  updated_at    timestamptz NOT NULL,
  superseded_at timestamptz NOT NULL,
  PRIMARY KEY (product_id, version)
);
