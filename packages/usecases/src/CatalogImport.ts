/**
 * Importing a catalog (docs/operations.md, "Importing a catalog"): records →
 * checks → upserts in batches (each one transaction) → tally. Reruns are no-ops;
 * a bad record is reported and skipped; `strict` checks everything before
 * writing anything; `prune` removes what the input no longer holds. Where the
 * records come from (a file, stdin, NDJSON or a JSON array) is the caller's:
 * they arrive as a stream of parsed records with their positions.
 */
import { Effect, Stream } from "effect"
import { CatalogStore, canonicalProductId, StoreError, type UpsertStatus } from "@productdir/domain"
import { makeBatchOrder } from "./BatchOrder.ts"
import { type Checked, makeRecordChecks, type RawRecord, type RecordChecks, type Rejection } from "./ImportChecks.ts"
import { findLookAlikes, type LookAlike } from "./ImportLookAlikes.ts"

type Valid = Extract<Checked, { readonly _tag: "Valid" }>

export interface ImportOptions<E> {
  /** The input's records, read from the start; called once per pass (strict mode reads them twice). */
  readonly records: () => Stream.Stream<RawRecord, E>
  readonly batchSize: number
  readonly dryRun: boolean
  readonly strict: boolean
  readonly prune: boolean
  /** Called for every rejection as it is found (the CLI prints it at once). */
  readonly onRejection?: (rejection: Rejection) => void
  /** Called after every batch. */
  readonly onProgress?: (tally: Tally) => void
}

export interface Tally {
  read: number
  created: number
  updated: number
  unchanged: number
  removed: number
  rejected: number
  warnings: number
}

export interface Warning {
  readonly where: string
  readonly message: string
}

/**
 * Batches written at once, each in its own transaction on its own connection. PostgreSQL parses a
 * batch's search text in the one backend its transaction runs in, most of an import's database time;
 * two batches side by side keep two cores busy, while this process reads and checks the next ones
 * (docs/benchmarks.md, "Import"). Their results are still tallied in input order.
 */
export const BATCHES_IN_FLIGHT = 2

/**
 * Bytes of records one batch holds at most, whatever its count: a batch of 500 records of 1 MB each (within every
 * documented limit) would take the import past its heap with nothing written. With the batches read ahead and in
 * flight, the import holds a few of these at once.
 */
export const BATCH_BYTES = 4 * 1024 * 1024

interface Filling {
  readonly batch: Array<Valid>
  bytes: number
}

/** `size` records or BATCH_BYTES of them, whichever comes first (a record over it alone). */
const batchesOf =
  (size: number) =>
  <E, R>(records: Stream.Stream<Valid, E, R>): Stream.Stream<ReadonlyArray<Valid>, E, R> =>
    records.pipe(
      Stream.mapAccum(
        (): Filling => ({ batch: [], bytes: 0 }),
        (state: Filling, record: Valid): readonly [Filling, ReadonlyArray<ReadonlyArray<Valid>>] => {
          if (state.batch.length > 0 && (state.batch.length >= size || state.bytes + record.bytes > BATCH_BYTES)) {
            return [{ batch: [record], bytes: record.bytes }, [state.batch]]
          }
          // The batch being filled is this state's alone: it grows in place.
          state.batch.push(record)
          state.bytes += record.bytes
          return [state, []]
        },
        { onHalt: (state) => (state.batch.length > 0 ? [state.batch] : []) }
      )
    )

/** Kept for the report; past this many, only the counts grow. */
export const MAX_LISTED = 10_000

export interface ImportResult {
  readonly tally: Tally
  readonly rejections: ReadonlyArray<Rejection>
  readonly warnings: ReadonlyArray<Warning>
  /** Why a requested prune did not run, if it did not. */
  readonly pruneSkipped?: string
  /** Nothing was written (dry run, or a strict run with rejections). */
  readonly wroteNothing: boolean
  /**
   * The store failed part-way (a connection lost, a disk full): the run stopped there. The tally holds what was
   * committed before; a rerun of the same input finishes the job (what was committed is unchanged by it).
   */
  readonly stoppedBy?: StoreError
  readonly durationMs: number
}

/** The store's names for what a record holds, as the record's own field paths. */
const FIELDS_BY_STORE_NAME: Record<string, string> = {
  products_slug_key: "slug",
  products_pkey: "id",
  slug: "slug",
  name: "name",
  category: "category",
  content: "(record)"
}

/** The field of a record the store refused, as far as the store said. */
const fieldRefused = (error: StoreError): string =>
  FIELDS_BY_STORE_NAME[error.constraint ?? ""] ?? FIELDS_BY_STORE_NAME[error.column ?? ""] ?? "(record)"

export const runImport = <E>(options: ImportOptions<E>) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogStore
    const started = Date.now()
    const tally: Tally = { read: 0, created: 0, updated: 0, unchanged: 0, removed: 0, rejected: 0, warnings: 0 }
    const rejections: Array<Rejection> = []
    const warnings: Array<Warning> = []
    const reject = (rejection: Rejection) => {
      tally.rejected++
      if (rejections.length < MAX_LISTED) rejections.push(rejection)
      options.onRejection?.(rejection)
    }
    const warn = (warning: Warning) => {
      tally.warnings++
      if (warnings.length < MAX_LISTED) warnings.push(warning)
    }
    const result = (extra: Partial<ImportResult>): ImportResult => ({
      tally,
      rejections,
      warnings,
      wroteNothing: options.dryRun,
      durationMs: Date.now() - started,
      ...extra
    })

    /** Counts rejections and warnings on the way through; passes the valid records on. */
    const note =
      (countWarnings: boolean) =>
      (c: Checked): Checked => {
        if (c._tag === "Rejected") reject(c.rejection)
        else if (countWarnings) for (const message of c.warnings) warn({ where: c.where, message })
        return c
      }

    const checked = (checks: RecordChecks, countWarnings: boolean) =>
      options.records().pipe(
        Stream.map((record) => note(countWarnings)(checks.check(record))),
        Stream.filter((c): c is Valid => c._tag === "Valid")
      )

    /** A look-alike name refused: a new product's always, a product already in the catalog's under --strict. */
    const refuseLookAlike = (found: LookAlike) =>
      reject({ position: found.record.position, where: found.record.where, errors: [{ path: "name", message: found.message }] })

    if (options.strict) {
      // First pass: validate everything; write nothing unless every record is good (and say how many were read).
      const first = makeRecordChecks()
      let read = 0
      yield* options.records().pipe(
        Stream.map((record) => {
          read++
          return note(false)(first.check(record))
        }),
        Stream.filter((c): c is Valid => c._tag === "Valid"),
        batchesOf(options.batchSize),
        Stream.runForEach((batch) => Effect.map(findLookAlikes(catalog, batch), (found) => found.forEach(refuseLookAlike)))
      )
      if (tally.rejected > 0) {
        tally.read = read
        return result({ wroteNothing: true })
      }
    }

    /**
     * Writes a batch; when the store refuses it for its data (a rule of the store no record check
     * knows, such as a constraint an operator added), the halves are written apart until the record at
     * fault is alone: it is rejected, naming its line and the field the store named, and the rest load.
     */
    const writeIsolating = (batch: ReadonlyArray<Valid>): Effect.Effect<ReadonlyArray<UpsertStatus | "rejected">, StoreError> =>
      Effect.map(catalog.upsert(batch.map((c) => c.input)), (outcomes) =>
        outcomes.map((o, i) => {
          // A slug the record asked for and did not get, and why: a new product's was another's, so it got another;
          // a product already in the catalog keeps the slug it was first given, so that links to it stay good.
          const asked = batch[i]?.input.slug
          if (asked !== undefined && o.slug !== asked) {
            warn({
              where: batch[i]!.where,
              message:
                o.status === "created"
                  ? `slug "${asked}" is another product's: this one is "${o.slug}"`
                  : `slug "${asked}" is not given: a product keeps the slug it was first given ("${o.slug}"), so that links to it stay good`
            })
          }
          // The operator's import wins over a publisher's change, and says so: the publisher's version stays readable.
          if (o.overwrote !== undefined) {
            warn({
              where: batch[i]!.where,
              message: `writes over the change its publisher (${o.overwrote}) made; the publisher's version is kept: GET /products/${o.id}/versions`
            })
          }
          return o.status
        })
      ).pipe(
        Effect.catchIf(
          (error) => error.fault === "data",
          (error) => {
            if (batch.length > 1) {
              const half = Math.ceil(batch.length / 2)
              return Effect.map(
                Effect.all([writeIsolating(batch.slice(0, half)), writeIsolating(batch.slice(half))]),
                ([first, second]) => [...first, ...second]
              )
            }
            const [record] = batch
            reject({
              position: record!.position,
              where: record!.where,
              errors: [{ path: fieldRefused(error), message: `the store refused it: ${error.detail}` }]
            })
            return Effect.succeed(["rejected" as const])
          }
        )
      )

    const checks = makeRecordChecks()
    const order = makeBatchOrder((batch: ReadonlyArray<Valid>) => batch.map((c) => canonicalProductId(c.input.id)))
    const written = yield* checked(checks, true).pipe(
      batchesOf(options.batchSize),
      // Read and validate the next batches while the store writes these.
      Stream.buffer({ capacity: 2 }),
      Stream.mapEffect(order),
      Stream.mapEffect(
        ({ batch, write }) => {
          // Names that imitate another product's: refused (a new product), or flagged (one already in the catalog).
          const screened = Effect.map(findLookAlikes(catalog, batch), (found) => {
            const refused = new Set<Valid>()
            for (const lookAlike of found) {
              if (lookAlike.existing && !options.strict) warn({ where: lookAlike.record.where, message: `name ${lookAlike.message}` })
              else {
                refuseLookAlike(lookAlike)
                refused.add(lookAlike.record)
              }
            }
            return { kept: batch.filter((c) => !refused.has(c)), refused: refused.size }
          })
          const statuses: Effect.Effect<ReadonlyArray<UpsertStatus | "rejected">, StoreError> = Effect.flatMap(
            screened,
            ({ kept, refused }) =>
              Effect.map(
                kept.length === 0 ? Effect.succeed([]) : options.dryRun ? catalog.preview(kept.map((c) => c.input)) : writeIsolating(kept),
                (written): ReadonlyArray<UpsertStatus | "rejected"> => [...Array<"rejected">(refused).fill("rejected"), ...written]
              )
          )
          return write(statuses)
        },
        { concurrency: BATCHES_IN_FLIGHT }
      ),
      Stream.runForEach((statuses) =>
        Effect.sync(() => {
          // A record the store refused was counted when it was rejected.
          for (const status of statuses) if (status !== "rejected") tally[status]++
          tally.read = tally.created + tally.updated + tally.unchanged + tally.rejected
          options.onProgress?.(tally)
          return `batch ${options.dryRun ? "checked" : "committed"}: ${statuses.length} records, ${tally.read} so far`
        }).pipe(Effect.flatMap(Effect.logDebug))
      ),
      // A store that fails part-way stops the run: what was committed before is the result, said with the failure.
      Effect.map(() => undefined),
      Effect.catchIf(
        (error): error is StoreError => error instanceof StoreError,
        (error) => Effect.succeed(error)
      )
    )
    tally.read = tally.created + tally.updated + tally.unchanged + tally.rejected
    if (written !== undefined) return result({ stoppedBy: written })

    if (!options.prune) return result({})
    // Every product is absent from an input with none: an export that failed, an empty pipe. Pruning to it would
    // empty the catalog.
    if (tally.read === 0) {
      return result({
        pruneSkipped:
          "the input holds no records, and pruning to it would remove every product (an export that failed leaves such a file). Nothing was removed."
      })
    }
    if (tally.rejected > 0) {
      return result({
        pruneSkipped: `${tally.rejected} record(s) were rejected; a rejected record's product would be pruned by mistake. Fix them and rerun.`
      })
    }
    const absent = yield* Stream.runCollect(catalog.absentFrom(checks.seen))
    if (!options.dryRun) {
      for (let i = 0; i < absent.length; i += 1000) yield* catalog.remove(absent.slice(i, i + 1000))
    }
    tally.removed = absent.length
    return result({})
  }).pipe(Effect.withSpan("CatalogImport.run"))
