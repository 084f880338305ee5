/**
 * Listing and search (docs/api.md, "Search and list"): the query, its keyset order and the opaque
 * cursor. Every store orders by the same keys, so a cursor means the same
 * thing whichever store made it.
 */
import { Result, Schema } from "effect"
import { Base64Url } from "effect/encoding"
import { InvalidCursor } from "../support/errors.ts"
import { boundedText } from "./text.ts"
import type { ListedProduct } from "./Product.ts"
import { queryWords, roundRank } from "./search.ts"
import { trustScore } from "../trust/trust.ts"

export const ListSort = Schema.Literals(["relevance", "trust", "name", "updated"]).annotate({
  message: 'must be "relevance", "trust", "name" or "updated"',
  description:
    "`relevance`: best match for `q` first, then best trust (the default with `q`); `trust`: best trust score first (the default without `q`); `name`: A→Z; `updated`: most recently changed first"
})
export type ListSort = typeof ListSort.Type

export const DEFAULT_LIMIT = 20
export const MAX_LIMIT = 100

export interface ListQuery {
  readonly q?: string | undefined
  readonly category?: string | undefined
  readonly updatedSince?: Date | undefined
  readonly sort: ListSort
  readonly limit: number
  readonly cursor?: string | undefined
}

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | null
}

/** The sort a listing gets when it names none: by relevance when it searches, else by trust. */
export const defaultSort = (q: string | undefined): ListSort => (q !== undefined && queryWords(q).length > 0 ? "relevance" : "trust")

/** A product of a listing with how well it matched the query (0 without one). */
export interface Ranked {
  readonly product: ListedProduct
  readonly rank: number
}

/** The position after the last item of a page, in the order of its sort. */
export type SortKey =
  | {
      readonly sort: "relevance"
      readonly rank: number
      readonly score: number
      readonly id: string
      /** How many results came before the next page (a large catalog ranks a bounded window of the best matches). */
      readonly depth?: number
    }
  | { readonly sort: "trust"; readonly score: number; readonly id: string }
  | { readonly sort: "name"; readonly name: string; readonly id: string }
  | { readonly sort: "updated"; readonly at: number; readonly id: string }

/** Case-insensitive name order, compared by code point in every store. */
export const nameKey = (name: string): string => name.toLowerCase()

export const sortKeyOf = (sort: ListSort, { product, rank }: Ranked): SortKey => {
  switch (sort) {
    case "relevance":
      return { sort, rank: roundRank(rank), score: trustScore(product.weighted), id: product.id }
    case "trust":
      return { sort, score: trustScore(product.weighted), id: product.id }
    case "name":
      return { sort, name: nameKey(product.content.name), id: product.id }
    case "updated":
      return { sort, at: product.updatedAt.getTime(), id: product.id }
  }
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Total order of a sort: its key, then id ascending. */
export const compareSortKeys = (a: SortKey, b: SortKey): number => {
  if (a.sort === "relevance" && b.sort === "relevance") return b.rank - a.rank || b.score - a.score || compareText(a.id, b.id)
  if (a.sort === "trust" && b.sort === "trust") return b.score - a.score || compareText(a.id, b.id)
  if (a.sort === "name" && b.sort === "name") return compareCodePoints(a.name, b.name) || compareText(a.id, b.id)
  if (a.sort === "updated" && b.sort === "updated") return b.at - a.at || compareText(a.id, b.id)
  return 0
}

/** UTF-8 byte order, which is what Postgres' "C" collation compares. */
export const compareCodePoints = (a: string, b: string): number => {
  const ai = a[Symbol.iterator]()
  const bi = b[Symbol.iterator]()
  for (;;) {
    const x = ai.next()
    const y = bi.next()
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1
    const d = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0)
    if (d !== 0) return d
  }
}

/**
 * A cursor is opaque to clients but not trusted: one that was edited or forged
 * must fail here, not in a store (an id that is not a UUID, a score out of range,
 * a timestamp no database can hold).
 */
const CursorId = Schema.String.check(Schema.isUUID())
/** Product timestamps are stamped by the store's clock: after 1970, before 10000. */
const EARLIEST = 0
const LATEST = Date.UTC(9999, 11, 31)
const SortKeyJson = Schema.Union([
  Schema.Struct({
    sort: Schema.Literal("relevance"),
    rank: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1_000 })),
    score: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })),
    id: CursorId,
    depth: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 })))
  }),
  Schema.Struct({ sort: Schema.Literal("trust"), score: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })), id: CursorId }),
  Schema.Struct({ sort: Schema.Literal("name"), name: boundedText(1_000), id: CursorId }),
  Schema.Struct({
    sort: Schema.Literal("updated"),
    at: Schema.Int.check(Schema.isBetween({ minimum: EARLIEST, maximum: LATEST })),
    id: CursorId
  })
])
const decodeKey = Schema.decodeUnknownResult(Schema.fromJsonString(SortKeyJson))

export const encodeCursor = (key: SortKey): string => Base64Url.encode(JSON.stringify(key))

/**
 * What a cursor holds, read by `decode` from its base64url JSON: a cursor that is not base64url, or not the JSON
 * `decode` reads, is none this service issued (the keyset, offset and bound cursors alike).
 */
const readCursor = <A>(cursor: string, decode: (json: string) => Result.Result<A, unknown>): Result.Result<A, InvalidCursor> => {
  const text = Base64Url.decodeString(cursor)
  const value = Result.isSuccess(text) ? decode(text.success) : undefined
  return value !== undefined && Result.isSuccess(value)
    ? Result.succeed(value.success)
    : Result.fail(new InvalidCursor({ cursor, reason: "not a cursor this service issued" }))
}

export const decodeCursor = (cursor: string, sort: ListSort): Result.Result<SortKey, InvalidCursor> =>
  Result.flatMap(readCursor(cursor, decodeKey), (key) =>
    key.sort === sort
      ? Result.succeed(key)
      : Result.fail(new InvalidCursor({ cursor, reason: `the cursor belongs to sort=${key.sort}, not sort=${sort}` }))
  )

/** The offset cursor of small in-memory lists (problems): opaque, validated like the keyset ones. */
export const encodeOffsetCursor = (offset: number): string => Base64Url.encode(JSON.stringify({ offset }))

const decodeOffset = Schema.decodeUnknownResult(
  Schema.fromJsonString(Schema.Struct({ offset: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 })) }))
)

export const decodeOffsetCursor = (cursor: string): Result.Result<number, InvalidCursor> =>
  Result.map(readCursor(cursor, decodeOffset), ({ offset }) => offset)

/**
 * A cursor as clients get it: a store's position (a keyset or offset cursor above) bound to the list it is a
 * position in, and sealed. A position means nothing in another list, a search with another `q` or a product's
 * problems read with another's cursor: it would start such a page at an arbitrary point, without a word. Bound, a
 * cursor sent with another list is refused saying so; sealed (a keyed hash of the list and the position, `seal`,
 * whose key only the service has), a cursor that was edited or made up is refused too: a client can only send back
 * positions the service handed out, the depth of a page included.
 */
const BoundCursorJson = Schema.fromJsonString(
  Schema.Struct({ at: Schema.String.check(Schema.isMaxLength(4_096)), of: Schema.String.check(Schema.isMaxLength(64)) })
)
const decodeBound = Schema.decodeUnknownResult(BoundCursorJson)

/** A keyed hash of a text, made with a key only the service holds (its use cases supply it). */
export type CursorSeal = (text: string) => string

const sealed = (seal: CursorSeal, cursor: string, list: string) => seal(`${list}\u0000${cursor}`)

/** `cursor` bound to the list that `list` names (any text that differs between lists: their parameters), sealed. */
export const bindCursor = (cursor: string, list: string, seal: CursorSeal): string =>
  Base64Url.encode(JSON.stringify({ at: cursor, of: sealed(seal, cursor, list) }))

/**
 * The position a bound cursor holds, when it was bound to `list` and sealed by this service; `other` says what a
 * cursor of another list belongs to.
 */
export const unbindCursor = (cursor: string, list: string, other: string, seal: CursorSeal): Result.Result<string, InvalidCursor> =>
  Result.flatMap(readCursor(cursor, decodeBound), (bound) =>
    bound.of === sealed(seal, bound.at, list)
      ? Result.succeed(bound.at)
      : Result.fail(new InvalidCursor({ cursor, reason: `the cursor belongs to ${other}, or was not issued by this service` }))
  )
