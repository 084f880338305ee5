/**
 * The SQL schema, in code. Part of the operators' interface (docs/database.md): changed only by adding
 * a migration. Each migration is frozen: it holds the SQL it ran when it shipped and imports nothing of
 * the code that changes, so a database that ran it long ago and one that runs it today end up the same.
 * Each runs once, in a transaction, under the migrator's lock, so concurrent starts are safe. The
 * functions and the views the service runs are not here: they are routines (../routines/), installed
 * at start when they changed.
 */
import * as Migrator from "effect/sql/Migrator"
import { migration as m0001 } from "./0001_products_and_votes.ts"
import { migration as m0002 } from "./0002_agents_and_shared_limits.ts"
import { migration as m0003 } from "./0003_change_feed.ts"
import { migration as m0004 } from "./0004_cast_vote.ts"
import { migration as m0005 } from "./0005_search.ts"
import { migration as m0006 } from "./0006_cast_vote_within.ts"
import { migration as m0007 } from "./0007_search_apart.ts"
import { migration as m0008 } from "./0008_search_before_product.ts"
import { migration as m0009 } from "./0009_signature_nonces.ts"
import { migration as m0010 } from "./0010_routines.ts"
import { migration as m0011 } from "./0011_crowd_defense.ts"
import { migration as m0012 } from "./0012_search_lists.ts"
import { migration as m0013 } from "./0013_search_names.ts"
import { migration as m0014 } from "./0014_search_starts.ts"
import { migration as m0015 } from "./0015_problem_keys.ts"
import { migration as m0016 } from "./0016_agents_by_key.ts"
import { migration as m0017 } from "./0017_problem_look_alikes.ts"
import { migration as m0018 } from "./0018_category_listings.ts"
import { migration as m0019 } from "./0019_vote_weights.ts"
import { migration as m0020 } from "./0020_report_networks.ts"

export const MIGRATIONS_TABLE = "productdir_migrations"

/** Every migration, by id: the order they run in. */
const ALL = {
  "0001_products_and_votes": m0001,
  "0002_agents_and_shared_limits": m0002,
  "0003_change_feed": m0003,
  "0004_cast_vote": m0004,
  "0005_search": m0005,
  "0006_cast_vote_within": m0006,
  "0007_search_apart": m0007,
  "0008_search_before_product": m0008,
  "0009_signature_nonces": m0009,
  "0010_routines": m0010,
  "0011_crowd_defense": m0011,
  "0012_search_lists": m0012,
  "0013_search_names": m0013,
  "0014_search_starts": m0014,
  "0015_problem_keys": m0015,
  "0016_agents_by_key": m0016,
  "0017_problem_look_alikes": m0017,
  "0018_category_listings": m0018,
  "0019_vote_weights": m0019,
  "0020_report_networks": m0020
}

export const migrations = Migrator.fromRecord(ALL)

/** Every migration this version has, by its id (`0016_agents_by_key`): what a current schema has run. */
export const KNOWN_MIGRATIONS: ReadonlyArray<string> = Object.keys(ALL)

/** Runs pending migrations; returns what ran (empty when the schema is current). */
export const migrate = Migrator.make({})({ loader: migrations, table: MIGRATIONS_TABLE })

/** Runs the migrations up to and including `last` only: a database as an earlier release left it (tests). */
export const migrateThrough = (last: keyof typeof ALL) =>
  Migrator.make({})({
    loader: Migrator.fromRecord(Object.fromEntries(Object.entries(ALL).filter(([id]) => id <= last))),
    table: MIGRATIONS_TABLE
  })
