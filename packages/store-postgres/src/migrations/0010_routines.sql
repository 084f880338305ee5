-- Migration 0010_routines, frozen: where the routines (../routines/) record what is installed (each
-- one's hash: a start whose routines hash differently installs them), and the rewrites of stored values
-- a changed routine left to do (the trust scores, the search vectors), with how far they have come, so
-- a process that stops in the middle of one leaves the next to go on from there.

CREATE TABLE productdir_routines (
    name         text PRIMARY KEY,
    hash         text NOT NULL,
    installed_at timestamptz NOT NULL
  );

CREATE TABLE productdir_rewrites (
    name       text PRIMARY KEY,
    after      uuid NOT NULL,
    started_at timestamptz NOT NULL
  );
