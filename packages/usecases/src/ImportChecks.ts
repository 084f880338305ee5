/**
 * The import's record checks (docs/operations.md, "Importing a catalog"): every record through the domain's
 * import schema; a bad one becomes a rejection naming each failing field path,
 * a good one a store input with an id (its own, else one derived from its slug
 * or name, so reruns match) and its warnings. Ids are compared whole, in bounded
 * memory (IdTable.ts): a later record with an earlier record's id wins, with a
 * warning naming both, and `--prune` keeps exactly the ids that were seen.
 */
import { Result, Schema } from "effect"
import {
  canonicalProductId,
  fieldErrors,
  fromImportRecord,
  UNKNOWN_FIELD,
  ImportRecord,
  type ProductId,
  type ProductInput
} from "@productdir/domain"
import { createHash } from "node:crypto"
import { IdTable } from "./IdTable.ts"

/** Where a record was in its input: a line of NDJSON, or an index of a JSON array. */
export type Position = { readonly line: number } | { readonly index: number }

export const describePosition = (position: Position): string => ("line" in position ? `line ${position.line}` : `index ${position.index}`)

/** A field's place in a record: names and array indexes, outermost first. */
export type FieldPath = ReadonlyArray<string | number>

/**
 * A record as a reader produced it: parsed JSON, or why it could not be. A parsed record that gave a name
 * twice in one object says where (`repeated`, empty when none): the value holds only the last, so the record is refused
 * rather than imported with one of the two values dropped without a word (domain's duplicateKeys.ts).
 */
export type RawRecord =
  | {
      readonly _tag: "Parsed"
      readonly position: Position
      readonly value: unknown
      readonly repeated: ReadonlyArray<FieldPath>
      /** Its size as read (bytes of JSON): what a batch of records weighs (CatalogImport.ts). */
      readonly bytes: number
    }
  | { readonly _tag: "Unreadable"; readonly position: Position; readonly message: string }

export interface FieldError {
  readonly path: string
  readonly message: string
}

export interface Rejection {
  readonly position: Position
  readonly where: string
  readonly errors: ReadonlyArray<FieldError>
}

export type Checked =
  | {
      readonly _tag: "Valid"
      readonly position: Position
      readonly where: string
      readonly input: ProductInput
      /** Where its id came from: given, or made from its slug or its name (the record gave no id). */
      readonly idFrom: "id" | "slug" | "name"
      /** Given trust values that disagree with the counts, and a repeated id. */
      readonly warnings: ReadonlyArray<string>
      /** Its size as read. */
      readonly bytes: number
    }
  | { readonly _tag: "Rejected"; readonly rejection: Rejection }

const decode = Schema.decodeUnknownResult(ImportRecord)

/** What a name given twice in one object is told: which value was meant is the author's to say, not a parser's. */
export const REPEATED_NAME = "is given more than once in its object: give it once (a JSON parser keeps only one of the values)"

/** `["pricing", "plans", 0, "price"]` → `pricing.plans[0].price` */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0 ? "(record)" : path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("")

/** A stable UUID (v5 layout, SHA-1) for records that carry no id of their own. */
export const derivedId = (key: string): ProductId => {
  const hash = createHash("sha1").update(`productdir:${key}`).digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` as ProductId
}

const positionNumber = (position: Position) => ("line" in position ? position.line : position.index)

/** One record on its own: schema, id, trust warnings. */
export const checkRecord = (record: RawRecord): Checked => {
  const where = describePosition(record.position)
  if (record._tag === "Unreadable") {
    return { _tag: "Rejected", rejection: { position: record.position, where, errors: [{ path: "(record)", message: record.message }] } }
  }
  const decoded = decode(record.value, { errors: "all", onExcessProperty: "error" })
  // Every wrong field at once: each repeated name, then what the schema found, in the plain words every door
  // uses (`must be text`, `is required`); an unknown field is one a record does not have.
  const errors = [
    ...record.repeated.map((path) => ({ path: formatPath(path), message: REPEATED_NAME })),
    ...(Result.isFailure(decoded) ? fieldErrors(decoded.failure.issue) : []).map((issue) => ({
      path: formatPath(issue.path),
      message: issue.message === UNKNOWN_FIELD ? "is not a field of an import record" : issue.message
    }))
  ]
  if (Result.isFailure(decoded) || errors.length > 0) {
    return { _tag: "Rejected", rejection: { position: record.position, where, errors } }
  }
  const value = decoded.success
  const fallback = derivedId(value.slug !== undefined ? `slug:${value.slug}` : `name:${value.name}`)
  const imported = fromImportRecord(value, fallback)
  const idFrom = value.id !== undefined ? "id" : value.slug !== undefined ? "slug" : "name"
  return {
    _tag: "Valid",
    position: record.position,
    where,
    input: imported.input,
    idFrom,
    warnings: imported.warnings,
    bytes: record.bytes
  }
}

export interface RecordChecks {
  /** Checks the next record of an input, remembering its id. */
  readonly check: (record: RawRecord) => Checked
  /** Whether a valid record of the input had this id: what `--prune` keeps. */
  readonly seen: (id: ProductId) => boolean
}

/** The checks of one pass over one input. */
export const makeRecordChecks = (): RecordChecks => {
  const ids = new IdTable()
  return {
    check: (record) => {
      const checked = checkRecord(record)
      if (checked._tag === "Rejected") return checked
      const at = positionNumber(checked.position)
      const first = ids.setIfAbsent(canonicalProductId(checked.input.id), at)
      if (first === at) return checked
      const earlier = describePosition("line" in checked.position ? { line: first } : { index: first })
      // A record without an id is named by its slug or name: say so, or "same id" reads wrong for two records that gave none.
      const same =
        checked.idFrom === "id"
          ? `same id as ${earlier}`
          : `same product as ${earlier} (a record without an id is the product its ${checked.idFrom} names)`
      return { ...checked, warnings: [`${same}: the later record wins`, ...checked.warnings] }
    },
    seen: (id) => ids.has(canonicalProductId(id))
  }
}
