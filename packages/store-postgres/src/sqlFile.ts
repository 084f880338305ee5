/**
 * SQL kept as SQL: a `.sql` file this package ships (its migrations, `src/migrations/NNNN_*.sql`, and its routines,
 * `src/routines/sql/*.sql`), read where the package is installed and cut into its statements. The driver sends one
 * statement at a time (PostgreSQL's extended protocol takes no more), so a file is split here: at each `;` outside
 * quotes, dollar quotes and comments.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"

// Resolved by the package's name, not beside this module: the CLIs run as one bundle of their modules
// (apps/reconcile/rolldown.config.ts), from where the package's files are found the way Node finds the package.
const resolveShipped = createRequire(import.meta.url).resolve

/** The text of a `.sql` file this package ships, by its path in the package's exports (`migrations/0001_x.sql`). */
export const shippedSql = (path: string): string => readFileSync(resolveShipped(`@productdir/store-postgres/${path}`), "utf8")

/**
 * The statements of a SQL text, in order, each without its `;`. Quotes ('…', "…"), dollar quotes ($fn$…$fn$, $$…$$)
 * and comments (-- to the line's end, /* … *\/) are passed over whole. What the shipped files do not use is not
 * read: a nested block comment, a backslash escape in an E'' string (write '' for a quote). A statement starts at its first code: the
 * comments before it are the file's, and a piece holding nothing but comments and blanks is no statement.
 */
export const sqlStatements = (text: string): Array<string> => {
  const statements: Array<string> = []
  // Where the statement's code starts: comments before it are the file's words, not the statement's.
  let start = -1
  let i = 0
  const code = () => {
    if (start === -1) start = i
  }
  const cut = (end: number) => {
    if (start !== -1) statements.push(text.slice(start, end).trim())
    start = -1
  }
  while (i < text.length) {
    const c = text[i]!
    if (c === "-" && text[i + 1] === "-") {
      const end = text.indexOf("\n", i)
      i = end === -1 ? text.length : end + 1
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2)
      i = end === -1 ? text.length : end + 2
    } else if (c === "'" || c === '"') {
      code()
      // A quote inside is doubled ('it''s'): the scan simply meets the closing one and the next opening one.
      const end = text.indexOf(c, i + 1)
      i = end === -1 ? text.length : end + 1
    } else if (c === "$" && /^\$(?:[A-Za-z_]\w*)?\$/.test(text.slice(i, i + 64)) && !/\w/.test(text[i - 1] ?? "")) {
      code()
      const tag = /^\$(?:[A-Za-z_]\w*)?\$/.exec(text.slice(i, i + 64))![0]
      const end = text.indexOf(tag, i + tag.length)
      i = end === -1 ? text.length : end + tag.length
    } else if (c === ";") {
      cut(i)
      i += 1
    } else {
      if (!/\s/.test(c)) code()
      i += 1
    }
  }
  cut(text.length)
  return statements
}
