-- Migration 0009_signature_nonces, frozen: the SQL it ran when it shipped, whatever the code says today. The
-- functions and views the service runs now are routines (../routines/), installed at start.
-- The nonces of signed requests (Nonces), until their signature expires: every process sees every
-- claim, so a request replayed to another process is refused too. The key is a digest, so a row has
-- one size whatever the client sent.

CREATE TABLE signature_nonces (
    key        bytea PRIMARY KEY,
    expires_at timestamptz NOT NULL
  );

CREATE INDEX signature_nonces_by_expiry ON signature_nonces (expires_at);
