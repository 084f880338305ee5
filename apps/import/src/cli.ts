/**
 * The command line: `productdir-import <file|->` and `productdir-import export [file|-]`.
 * Handlers provide the store themselves, so `--help` and usage errors never touch a database.
 */
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { layerForCatalog, layerForDryRun, layerFromConfig, unwritableFile } from "@productdir/runtime"
import { ROLE } from "./role.ts"
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Readable, Writable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { PruneRefused, RecordsRejected, StoppedPartWay } from "./errors.ts"
import { runExport } from "./exporter.ts"
import { CatalogImport } from "@productdir/usecases"
import { rejectionLine, reportJson, summaryText } from "./output.ts"
import { makeProgress } from "./progress.ts"
import { InputError, readRecords } from "./records.ts"

/**
 * A readable source that can be opened once per pass (stdin is spooled to a file when read twice), with its size when
 * known and the bytes read of the pass last opened (for the progress line).
 */
const openSource = (file: string, passes: number) =>
  Effect.gen(function* () {
    if (file !== "-") {
      const stat = yield* Effect.try({
        try: () => statSync(file),
        catch: () =>
          new InputError({ message: `cannot read ${file}: no such file. Give a path to an NDJSON or JSON array file, or - for stdin.` })
      })
      if (!stat.isFile()) return yield* new InputError({ message: `cannot read ${file}: not a file` })
      let read = 0
      const open = () => {
        read = 0
        const stream = createReadStream(file)
        stream.on("data", (chunk) => {
          read += chunk.length
        })
        return stream as Readable
      }
      return Object.assign(open, { bytes: stat.size as number | undefined, read: () => read })
    }
    if (passes === 1) return Object.assign(() => process.stdin as Readable, { bytes: undefined as number | undefined, read: () => 0 })
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "productdir-import-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const spool = join(dir, "stdin")
    yield* Effect.tryPromise({
      try: () => pipeline(process.stdin, createWriteStream(spool)),
      catch: (error) => new InputError({ message: `cannot read stdin: ${String(error)}` })
    })
    return Object.assign(() => createReadStream(spool) as Readable, { bytes: undefined as number | undefined, read: () => 0 })
  })

/** Fails unless `path` can be written: its folder exists and lets us write, and so does the file if it is there. */
const writable = (path: string) =>
  Effect.suspend(() => {
    const why = unwritableFile(path)
    return why === undefined
      ? Effect.void
      : Effect.fail(new InputError({ message: `cannot write the report to ${path}: ${why}; nothing was imported` }))
  })

const file = Argument.String("file").pipe(Argument.withDescription("NDJSON or JSON array file to import; - reads stdin"))

export const importCommand = Command.make(
  "productdir-import",
  {
    file,
    format: Flag.Literals("format", ["auto", "ndjson", "json"]).pipe(
      Flag.withDefault("auto" as const),
      Flag.withDescription("Input format; auto looks at the first non-space byte ([ means a JSON array)")
    ),
    dryRun: Flag.Boolean("dry-run").pipe(
      Flag.withDefault(false),
      Flag.withDescription("Validate and report what would change; write nothing")
    ),
    batchSize: Flag.Int("batch-size").pipe(
      Flag.filter(
        (n: number) => n >= 1 && n <= 10_000,
        (n) => `--batch-size ${n} is out of range: 1 to 10000`
      ),
      Flag.withDefault(500),
      Flag.withDescription("Records per batch; each batch is one transaction")
    ),
    strict: Flag.Boolean("strict").pipe(
      Flag.withDefault(false),
      Flag.withDescription("Any rejected record fails the run and nothing is written")
    ),
    prune: Flag.Boolean("prune").pipe(
      Flag.withDefault(false),
      Flag.withDescription("Remove products absent from the input (their reads answer 410; votes are kept)")
    ),
    report: Flag.String("report").pipe(Flag.optional, Flag.withDescription("Write the JSON summary to this file"))
  },
  (options) =>
    Effect.gen(function* () {
      // A report that cannot be written is said before anything is imported: after, exit 2 read as "nothing written".
      if (Option.isSome(options.report)) yield* writable(options.report.value)
      const open = yield* openSource(options.file, options.strict ? 2 : 1)
      const progress = makeProgress(open)
      const result = yield* CatalogImport.runImport({
        records: () => readRecords(open(), options.format),
        batchSize: options.batchSize,
        dryRun: options.dryRun,
        strict: options.strict,
        prune: options.prune,
        onRejection: (rejection) => {
          progress.stop()
          process.stderr.write(`${rejectionLine(rejection)}\n`)
        },
        onProgress: progress.update
      }).pipe(Effect.ensuring(Effect.sync(progress.stop)))
      const input = options.file === "-" ? "stdin" : options.file
      yield* Console.log(summaryText(input, result, options.dryRun))
      // Stopped part-way by the store: what it committed was just said; then why it stopped. Before any batch was
      // committed, it is the store's own failure, said as at start.
      if (result.stoppedBy !== undefined) {
        const committed = result.tally.created + result.tally.updated + result.tally.unchanged
        if (committed === 0) return yield* result.stoppedBy
        return yield* new StoppedPartWay({
          committed,
          reason:
            result.stoppedBy.fault === "disk-full" || result.stoppedBy.fault === "read-only" ? "the disk is full" : result.stoppedBy.detail
        })
      }
      if (Option.isSome(options.report)) {
        const path = options.report.value
        yield* Effect.try({
          try: () => writeFileSync(path, `${JSON.stringify(reportJson(input, result, options), null, 2)}\n`),
          catch: (error) => new InputError({ message: `cannot write the report to ${path}: ${String(error)}` })
        })
      }
      if (result.tally.rejected > 0) return yield* new RecordsRejected({ count: result.tally.rejected })
      if (result.pruneSkipped !== undefined) return yield* new PruneRefused({ reason: result.pruneSkipped })
      // A connection per batch in flight: the batches' transactions run side by side (usecases CatalogImport.ts).
    }).pipe(
      Effect.scoped,
      // A dry run builds the store only over a schema it would not change (StoreChoice.ts, layerForDryRun).
      Effect.provide(options.dryRun ? layerForDryRun(ROLE, { multiplex: false }) : layerFromConfig(ROLE, { multiplex: false }))
    )
).pipe(
  Command.withDescription(
    "Import a product catalog (NDJSON or a JSON array) into the productdir store. Exit 0: all loaded; 1: some records rejected; 2: usage, file or connection error, or --prune refused (an input with no records)."
  )
)

export const exportCommand = Command.make(
  "export",
  {
    file: Argument.String("file").pipe(Argument.withDefault("-"), Argument.withDescription("Where to write the NDJSON; - is stdout"))
  },
  ({ file }) =>
    Effect.gen(function* () {
      if (file === "-") {
        // A reader that stops early (`| head`) closes the pipe: that ends the export, it is not an error.
        process.stdout.on("error", (error: NodeJS.ErrnoException) => {
          if (error.code === "EPIPE") process.exit(0)
        })
      } else {
        const why = unwritableFile(file)
        if (why !== undefined) return yield* new InputError({ message: `cannot write the export to ${file}: ${why}; nothing was exported` })
      }
      const sink: Writable = file === "-" ? process.stdout : createWriteStream(file)
      const count = yield* runExport(sink, file === "-" ? "stdout" : file, file !== "-")
      if (file !== "-") yield* Console.error(`exported ${count.toLocaleString("en")} products to ${file}`)
    }).pipe(Effect.provide(layerForCatalog(ROLE, { readOnly: false })))
).pipe(
  Command.withDescription(
    "Write every product as NDJSON in the import shape (seed counts and problems included): export then import is a no-op."
  )
)

export const cli = importCommand.pipe(Command.withSubcommands([exportCommand]))
