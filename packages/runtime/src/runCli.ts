/**
 * How a command-line tool runs (productdir-import, -reconcile, -agents): its command on argv, with
 * the version; a success exits 0; a failure the tool knows exits as the tool says (it prints its own
 * line); a failure of the store prints one line (storeFailures.ts) and exits 2, and so does a usage
 * error, which effect/cli has already printed; SIGTERM and SIGINT are a clean stop, exit 0, and so is
 * the end of the npm that ran it (wrapperExit.ts). Logs go
 * to stderr (layerCliFor), and the output is flushed before the process exits. With an OTLP endpoint
 * configured (tracing.ts) the run is one trace: a root span named for the tool, its store calls
 * beneath, exported before the process exits.
 */
// Each module by its own path: the package index also loads its Redis, cluster and WebSocket modules.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Layer } from "effect"
import { CliError, CliOutput } from "effect/cli"
import type { PgliteClient } from "@productdir/store-postgres"
import { teardown } from "./exit.ts"
import { layerCliFor } from "./logging.ts"
import { storeFailure } from "./storeFailures.ts"
import { stopWithNpm } from "./wrapperExit.ts"

export const USAGE_EXIT = 2

export interface CliRun<E> {
  /** The tool, as it uses an embedded data directory (its name is its messages' prefix). */
  readonly role: PgliteClient.Role
  /** The command run on argv (`Command.run(command, { version })`). */
  readonly run: Effect.Effect<void, E, NodeServices.NodeServices>
  /** The exit code of a failure the tool knows, after printing what it prints for it; undefined for any other. */
  readonly known: (error: E) => Effect.Effect<number> | undefined
}

/**
 * A usage error is said on stderr, first, then the command's help: the default writes the help to stdout
 * (into `productdir-import export --bogus > catalog.ndjson`) and the error after 25 lines of it.
 */
const UsageOnStderr = CliOutput.layerPresenter({
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Effect.gen(function* () {
          const formatter = yield* CliOutput.Formatter
          yield* Console.error(formatter.formatErrors(event.errors))
          yield* Console.error(formatter.formatHelpDoc(event.helpDoc))
        })
      : CliOutput.defaultPresenter.present(event)
})

/**
 * A failure no handler knows: one line that names it, exit 2, never a silent exit or a stack trace. A usage
 * error of effect/cli has been said already (with the help), and is not said again.
 */
const unforeseen = (role: PgliteClient.Role, error: unknown) =>
  CliError.isCliError(error)
    ? Effect.succeed(USAGE_EXIT)
    : Console.error(`${role.tool}: ${error instanceof Error ? error.message : String(error)}`).pipe(Effect.as(USAGE_EXIT))

export const runCli = <E>(cli: CliRun<E>): void => {
  const program = cli.run.pipe(
    // The command (its first word) names what ran; its other arguments may name files, and stay out.
    Effect.withSpan(cli.role.tool, { attributes: { "productdir.command": process.argv[2] ?? "" }, root: true }),
    Effect.as(0),
    Effect.catch((error: E) => cli.known(error) ?? storeFailure(cli.role, USAGE_EXIT)(error) ?? unforeseen(cli.role, error)),
    Effect.provide(Layer.mergeAll(NodeServices.layer, layerCliFor(cli.role.tool), UsageOnStderr)),
    // The logging and tracing layers read settings too (LOG_LEVEL, the OTLP endpoint): a bad one is one line, exit 2.
    Effect.catch((error) => storeFailure(cli.role, USAGE_EXIT)(error) ?? unforeseen(cli.role, error))
  )
  stopWithNpm()
  NodeRuntime.runMain(program, { teardown: teardown(USAGE_EXIT) })
}
