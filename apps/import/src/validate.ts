/**
 * Every record through the domain's import schema: a bad one becomes a
 * rejection naming each failing field path, a good one a store input with
 * an id (its own, else one derived from its slug or name, so reruns match).
 */
import { Result, Schema, SchemaIssue } from "effect"
import { fromImportRecord, type Imported, ImportRecord, type ProductId } from "@productdir/domain"
import { createHash } from "node:crypto"
import { describePosition, type Position, type RawRecord } from "./records.ts"

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
  | { readonly _tag: "Valid"; readonly position: Position; readonly imported: Imported }
  | { readonly _tag: "Rejected"; readonly rejection: Rejection }

const decode = Schema.decodeUnknownResult(ImportRecord)
const format = SchemaIssue.makeFormatterStandardSchemaV1()

/** `["pricing", "plans", 0, "price"]` → `pricing.plans[0].price` */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0
    ? "(record)"
    : path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("")

/** A stable UUID (v5 layout, SHA-1) for records that carry no id of their own. */
export const derivedId = (key: string): ProductId => {
  const hash = createHash("sha1").update(`productdir:${key}`).digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` as ProductId
}

export const check = (record: RawRecord): Checked => {
  const where = describePosition(record.position)
  if (record._tag === "Unreadable") {
    return { _tag: "Rejected", rejection: { position: record.position, where, errors: [{ path: "(record)", message: record.message }] } }
  }
  const decoded = decode(record.value, { errors: "all", onExcessProperty: "error" })
  if (Result.isFailure(decoded)) {
    const errors = format(decoded.failure.issue).issues.map((issue) => ({
      path: formatPath((issue.path ?? []).map((p) => (typeof p === "object" && p !== null && "key" in p ? p.key : p))),
      message: issue.message
    }))
    return { _tag: "Rejected", rejection: { position: record.position, where, errors } }
  }
  const value = decoded.success
  const fallback = derivedId(value.slug !== undefined ? `slug:${value.slug}` : `name:${value.name}`)
  return { _tag: "Valid", position: record.position, imported: fromImportRecord(value, fallback) }
}
