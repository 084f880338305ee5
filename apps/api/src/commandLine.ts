/**
 * The API's command line: none. It is configured by environment variables (README, "Configuration"), so it
 * answers `--help` and `--version`, and any other argument is a mistake said at once, not a server started
 * on port 3000 that nobody asked for.
 */

export const HELP = `productdir-api: the Product Directory Service's HTTP API (and its MCP and A2A servers).

Usage: productdir-api            (or npm start in the repository)

It takes no arguments: every setting is an environment variable. The main ones:
  PORT, HOST              where it listens (3000 on 127.0.0.1)
  DATABASE_URL            a PostgreSQL server; unset, the embedded database in DATA_DIR (./.data)
  DATABASE_READ_URL       read replicas, comma-separated
  PUBLIC_URL              the origin clients reach it at, behind a proxy
  TRUST_PROXY             how many proxies in front append X-Forwarded-For
  LOG_LEVEL               debug, info, warn, error
README.md ("Configuration") lists every one; docs/operations.md says how to run it.

Options:
  --help, -h              this text
  --version               the version
`

/** What the command line asks for before anything starts: text to print and an exit code, or undefined to start. */
export const commandLineAnswer = (
  args: ReadonlyArray<string>,
  version: string
): { readonly text: string; readonly code: number } | undefined => {
  if (args.length === 0) return undefined
  if (args.some((arg) => arg === "--help" || arg === "-h")) return { text: HELP, code: 0 }
  if (args.length === 1 && args[0] === "--version") return { text: `${version}\n`, code: 0 }
  return {
    text: `productdir-api: takes no arguments, got ${args.map((arg) => JSON.stringify(arg)).join(" ")}; its settings are environment variables (productdir-api --help).\n`,
    code: 2
  }
}
