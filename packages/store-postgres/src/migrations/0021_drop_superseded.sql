-- Migration 0021_drop_superseded: the functions early migrations created (0001, 0004, 0006) in shapes that routines
-- (../routines/) have since replaced with others. Installing a routine drops the shapes it replaced; from this
-- migration on, the schema the migrations leave holds none of them either, so a database has, between its
-- migrations and its routines, no function the service no longer runs. IF EXISTS: a database that ran the routines
-- has none of them already.

DROP FUNCTION IF EXISTS productdir_trust_score(bigint, bigint);

DROP FUNCTION IF EXISTS productdir_cast_vote(
  uuid, text, text, uuid, text, timestamptz, integer, integer, integer, integer, text, text
);

DROP FUNCTION IF EXISTS productdir_cast_vote_within(
  text[], float8[], float8[], uuid, text, text, uuid, text, timestamptz, integer, integer, integer, integer, text, text
);
