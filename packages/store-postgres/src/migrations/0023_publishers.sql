-- Migration 0023_publishers: claims of domains and the publishers who proved them (docs/decisions.md, "Publishers").
-- A domain has at most one verified publisher (the partial unique index): two proofs of one domain race for it, and
-- the second is refused. A key is kept as its SHA-256, as agents' are.

CREATE TABLE publishers (
  id          uuid PRIMARY KEY,
  domain      text NOT NULL,
  status      text NOT NULL CHECK (status IN ('pending', 'verified', 'suspended')),
  token       text NOT NULL,
  method      text CHECK (method IN ('http', 'dns')),
  key_hash    text UNIQUE,
  created_at  timestamptz NOT NULL,
  verified_at timestamptz
);

CREATE UNIQUE INDEX publishers_one_verified ON publishers (domain) WHERE status = 'verified';
