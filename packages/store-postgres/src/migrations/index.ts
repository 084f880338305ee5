/**
 * The SQL schema, as SQL. Part of the operators' interface (docs/database.md): changed only by adding
 * a migration. Each migration is a file beside this one, `NNNN_name.sql` (or `.ts` for the two that re-key rows
 * by a rule of the code, frozen as it shipped), and is frozen: it holds what it ran when it shipped, so a database
 * that ran it long ago and one that runs it today end up the same (test/migrations-frozen.test.ts holds each
 * file to its checksum).
 * Each runs once, in a transaction, under the migrator's lock, so concurrent starts are safe. The
 * functions and the views the service runs are not here: they are routines (../routines/), installed
 * at start when they changed.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as Migrator from "effect/sql/Migrator"
import { shippedSql, sqlStatements } from "../sqlFile.ts"
import { migration as m0015 } from "./0015_problem_keys.ts"
import { migration as m0017 } from "./0017_problem_look_alikes.ts"

export const MIGRATIONS_TABLE = "productdir_migrations"

/** A migration that is SQL alone: its `.sql` file beside this one, its statements run in order. */
const fromSqlFile = (id: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const statement of sqlStatements(shippedSql(`migrations/${id}.sql`))) yield* sql.unsafe(statement)
  })

/** Every migration, by id: the order they run in. */
const ALL = {
  "0001_products_and_votes": fromSqlFile("0001_products_and_votes"),
  "0002_agents_and_shared_limits": fromSqlFile("0002_agents_and_shared_limits"),
  "0003_change_feed": fromSqlFile("0003_change_feed"),
  "0004_cast_vote": fromSqlFile("0004_cast_vote"),
  "0005_search": fromSqlFile("0005_search"),
  "0006_cast_vote_within": fromSqlFile("0006_cast_vote_within"),
  "0007_search_apart": fromSqlFile("0007_search_apart"),
  "0008_search_before_product": fromSqlFile("0008_search_before_product"),
  "0009_signature_nonces": fromSqlFile("0009_signature_nonces"),
  "0010_routines": fromSqlFile("0010_routines"),
  "0011_crowd_defense": fromSqlFile("0011_crowd_defense"),
  "0012_search_lists": fromSqlFile("0012_search_lists"),
  "0013_search_names": fromSqlFile("0013_search_names"),
  "0014_search_starts": fromSqlFile("0014_search_starts"),
  "0015_problem_keys": m0015,
  "0016_agents_by_key": fromSqlFile("0016_agents_by_key"),
  "0017_problem_look_alikes": m0017,
  "0018_category_listings": fromSqlFile("0018_category_listings"),
  "0019_vote_weights": fromSqlFile("0019_vote_weights"),
  "0020_report_networks": fromSqlFile("0020_report_networks"),
  "0021_drop_superseded": fromSqlFile("0021_drop_superseded"),
  "0022_product_versions": fromSqlFile("0022_product_versions"),
  "0023_publishers": fromSqlFile("0023_publishers")
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
