/**
 * A routine: a function, a view or a trigger function the service runs in its database. Its
 * definition is SQL (sql/, one file per concern) that changes with the rules it carries (the trust
 * score's prior, the search text's limit, how a vote counts): the domain's constants are named in it
 * and filled in here; migrations never hold one that is still in use (they are frozen: ../migrations/). At start a routine whose statements hash differently from what the
 * database recorded is installed (install.ts), in one transaction with the others that changed, and
 * what it computed into stored columns is rewritten (rewrites.ts).
 */
import { createHash } from "node:crypto"
import { shippedSql, sqlStatements } from "../sqlFile.ts"

/** Stored values a routine computes: rewritten in batches after it changes. */
export type Rewrite = "trust scores" | "search vectors"

export interface Routine {
  readonly name: string
  /** The statements that install it, in order: DROPs of what it replaces, then its CREATE. */
  readonly statements: ReadonlyArray<string>
  /** A function's body as PostgreSQL keeps it (`pg_proc.prosrc`): what is installed is held to it. */
  readonly body?: string
  readonly rewrites?: ReadonlyArray<Rewrite>
}

export const hashOf = (routine: Routine): string =>
  createHash("sha256")
    .update(JSON.stringify([routine.statements, routine.rewrites ?? []]))
    .digest("hex")

const MARKER = /^-- routine: (\S+)(?: \(rewrites ([^)]*)\))?$/gmu
const FUNCTION_BODY = /^CREATE OR REPLACE FUNCTION [\s\S]*? AS \$fn\$([\s\S]*)\$fn\$$/u

/**
 * The routines of a `.sql` file (sql/): each starts at its marker, `-- routine: <name>`, with `(rewrites trust
 * scores)` when it computes stored values, and is the statements up to the next marker: DROPs of the shapes it
 * replaced, then its CREATE. `{{NAME}}` stands for a constant of the domain, given in `values`: the SQL follows the
 * code's rules without copying their numbers.
 */
export const routinesOf = (text: string, values: Readonly<Record<string, number | string>> = {}): Array<Routine> => {
  const filled = text.replace(/\{\{(\w+)\}\}/gu, (_, key: string) => {
    const value = values[key]
    if (value === undefined) throw new Error(`a routine's SQL names {{${key}}}, which no value is given for`)
    return String(value)
  })
  const markers = [...filled.matchAll(MARKER)]
  return markers.map((marker, i) => {
    const statements = sqlStatements(filled.slice(marker.index + marker[0].length, markers[i + 1]?.index ?? filled.length))
    const body = FUNCTION_BODY.exec(statements.at(-1) ?? "")?.[1]
    return {
      name: marker[1]!,
      statements,
      ...(body === undefined ? {} : { body }),
      ...(marker[2] === undefined ? {} : { rewrites: marker[2].split(", ") as Array<Rewrite> })
    }
  })
}

/** The routines of one file of sql/, as this package ships it. */
export const routinesIn = (file: string, values?: Readonly<Record<string, number | string>>): Array<Routine> =>
  routinesOf(shippedSql(`routines/${file}.sql`), values)
