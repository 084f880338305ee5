/**
 * Every way a store can fail to start, as one line that says what is wrong and
 * what to do: what an entry point prints before it exits. Never a stack trace.
 */
import { Console, Effect, Option, type Config } from "effect"
import type * as Migrator from "effect/sql/Migrator"
import type { SqlError } from "effect/sql/SqlError"
import type { StoreError } from "@productdir/domain"
import { type DataDirOwned, type DataDirUnusable, DISK_FULL, type PgliteClient, SHARING_TOOL } from "@productdir/store-postgres"
import { resolve } from "node:path"
import { StoreConfig, storeKind } from "./StoreChoice.ts"

type Role = PgliteClient.Role

const whatToDo = (owned: DataDirOwned, role: Role): string =>
  role.share
    ? "Stop that process, give this one its own DATA_DIR, or set DATABASE_URL to run several API processes on one PostgreSQL server."
    : owned.tool === SHARING_TOOL
      ? "It did not open its database for local clients in time; retry, or stop it and run this again."
      : "Wait for it to finish, or set DATABASE_URL to use a PostgreSQL server."

/** Where the store keeps its data, as the person who started the program set it. */
const whereDataLives = Effect.map(Effect.option(StoreConfig), (found) => Option.getOrUndefined(found)).pipe(
  Effect.map((config) =>
    config === undefined || storeKind(config) !== "pglite"
      ? "the PostgreSQL server's data directory"
      : `DATA_DIR (${resolve(config.dataDir)})`
  )
)

/** The one line for a full disk, wherever it was met: free space there, then run again. */
const diskFull = whereDataLives.pipe(Effect.map((where) => `the disk holding ${where} is full: free some space, then run this again.`))

/**
 * The one line for writes refused by a read-only store: the embedded one keeps its disk's last space in reserve
 * (a full disk, as far as a write is concerned); a server refuses them as a replica does.
 */
const lowOnSpace = Effect.flatMap(Effect.option(StoreConfig), (config) =>
  Option.isSome(config) && storeKind(config.value) === "pglite"
    ? diskFull
    : Effect.succeed(
        "the PostgreSQL server refuses writes: DATABASE_URL names a read-only server (a replica, or one in recovery); point it at the primary."
      )
)

/**
 * A setting that could not be read, in plain words: `PORT: Expected an integer`, `LOG_LEVEL must be one of …`,
 * not the library's `SchemaError(Expected an integer\n  at ["PORT"])`.
 */
export const configErrorText = (error: Config.ConfigError): string => {
  const text = error.cause.message
  const at = /^([\s\S]*?)\n\s*at \[(.+?)\]\s*$/u.exec(text)
  return (at === null ? text : `${at[2]!.replaceAll('"', "")}: ${at[1]}`).replace(/\s+/g, " ").trim()
}

/**
 * What the database itself said, at the end of an error's causes: a migration that failed because the
 * database already holds another application's `products` table says "relation "products" already exists".
 */
const rootCause = (error: { readonly cause?: unknown }): string | undefined => {
  let said: string | undefined
  let cause: unknown = error.cause
  for (let depth = 0; depth < 8 && typeof cause === "object" && cause !== null; depth++) {
    const message = (cause as { readonly message?: unknown }).message
    if (typeof message === "string" && message !== "") said = message
    cause = (cause as { readonly cause?: unknown }).cause
  }
  return said
}

/** Handlers for `Effect.catchTags`: each prints its line on stderr and yields `code`. */
export const storeFailureHandlers = (role: Role, code: number) => {
  const fail = (line: string) => Console.error(`${role.tool}: ${line}`).pipe(Effect.as(code))
  return {
    DataDirOwned: (error: DataDirOwned) => fail(`${error.message}. ${whatToDo(error, role)}`),
    DataDirUnusable: (error: DataDirUnusable) =>
      error.detail === DISK_FULL ? Effect.flatMap(diskFull, fail) : fail(`${error.message}. Check DATA_DIR, or set DATABASE_URL.`),
    StoreError: (error: StoreError) => {
      switch (error.fault) {
        case "disk-full":
          return Effect.flatMap(diskFull, fail)
        case "read-only":
          return Effect.flatMap(lowOnSpace, fail)
        case "data":
          return fail(`the store refused the data during ${error.operation}: ${error.detail}.`)
        default:
          // A dry run refused for the schema reached the store fine: where to point instead is not the question.
          return error.operation === "dry run" || error.operation === "find the catalog"
            ? fail(`${error.detail}.`)
            : fail(`cannot use the store: ${error.detail}. Check DATABASE_URL, or unset it to use the embedded store in DATA_DIR.`)
      }
    },
    SqlError: (error: SqlError) =>
      fail(`cannot use the store: ${error.message}. Check DATABASE_URL, or unset it to use the embedded store in DATA_DIR.`),
    MigrationError: (error: Migrator.MigrationError) =>
      fail(
        `cannot bring the database schema up to date: ${error.message}${rootCause(error) === undefined ? "" : ` (${rootCause(error)})`}.`
      ),
    ConfigError: (error: Config.ConfigError) => fail(`bad configuration: ${configErrorText(error)}.`)
  }
}

type StoreFailureTag = keyof ReturnType<typeof storeFailureHandlers>

/** The line and exit code of `error` when it is a store's failure; undefined when it is something else. */
export const storeFailure =
  (role: Role, code: number) =>
  (error: unknown): Effect.Effect<number> | undefined => {
    const handlers = storeFailureHandlers(role, code)
    const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : undefined
    if (tag === undefined || !(tag in handlers)) return undefined
    return (handlers[tag as StoreFailureTag] as (e: unknown) => Effect.Effect<number>)(error)
  }
