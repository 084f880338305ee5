/**
 * A response prepared once and sent many times: its bytes in every content
 * coding a client may accept (identity, gzip, brotli, for bodies of 1 KiB and
 * more), and a strong ETag per coding. Sending one is a choice among ready
 * bytes: no serialising, hashing or compressing per request. The constant reads
 * (the docs page, the OpenAPI document, llms.txt, the index) are compressed once,
 * up front, at the best levels; a body made for one request is compressed only
 * into the coding that request accepts (most clients of an API accept none), and
 * a coding once made is kept for the next send of the same Prepared.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from "node:zlib"

/** Below this, compression saves too little to be worth a variant. */
export const MIN_COMPRESS_BYTES = 1024

export type Coding = "br" | "gzip" | "identity"

export type Compressed = Exclude<Coding, "identity">

export const etagOf = (body: Uint8Array): string => `"${createHash("sha1").update(body).digest("base64url")}"`

/**
 * zlib answers a view into its 64 KiB output chunk: kept as it is, a 700-byte
 * variant would hold 64 KiB while a cache budget counted 700. A copy holds
 * exactly its bytes (a copy by the constructor: `Buffer#slice` is a view).
 */
const exact = (output: Uint8Array): Uint8Array => (output.byteLength === output.buffer.byteLength ? output : new Uint8Array(output))

/** The levels of a body compressed per request, here and by the compression middleware: fast over small. */
export const FAST_LEVELS = { gzip: 6, br: 5 } as const

const fastGzip = { level: FAST_LEVELS.gzip }
const fastBrotli = (body: Uint8Array) => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: FAST_LEVELS.br, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength }
})

const fastCoding = (body: Uint8Array, coding: Compressed): Uint8Array =>
  exact(coding === "gzip" ? gzipSync(body, fastGzip) : brotliCompressSync(body, fastBrotli(body)))

/**
 * One response's bytes. A class, not an object of closures: the read cache holds
 * tens of thousands of these, and each closure and its context would cost heap
 * per entry.
 */
export class Prepared {
  readonly contentType: string
  /** Strong validator of the identity bytes; each coding's tag derives from it. */
  readonly etag: string
  readonly identity: Uint8Array
  /** Large enough to be sent compressed: the other codings exist (or will, on first use). */
  readonly compressible: boolean
  #gzip: Uint8Array | undefined
  #br: Uint8Array | undefined

  constructor(contentType: string, identity: Uint8Array, made?: { readonly gzip: Uint8Array; readonly br: Uint8Array }) {
    this.contentType = contentType
    this.identity = identity
    this.etag = etagOf(identity)
    this.compressible = identity.byteLength >= MIN_COMPRESS_BYTES
    this.#gzip = made?.gzip
    this.#br = made?.br
  }

  /** The body in a compressed coding: made on first use (fast levels), then kept. */
  encoded(coding: Compressed): Uint8Array {
    if (coding === "gzip") {
      this.#gzip ??= fastCoding(this.identity, "gzip")
      return this.#gzip
    }
    this.#br ??= fastCoding(this.identity, "br")
    return this.#br
  }

  /** Every byte held so far, for cache budgets. */
  bytes(): number {
    return this.identity.byteLength + (this.#gzip?.byteLength ?? 0) + (this.#br?.byteLength ?? 0)
  }
}

/**
 * Prepared on the spot, with fast compression levels, each coding made when a
 * request first asks for it: for bodies made per change or per request.
 * Synchronous: small bodies compress in microseconds, less than a round trip to
 * the thread pool costs.
 */
export const prepareFast = (body: Uint8Array, contentType: string): Prepared => new Prepared(contentType, body)

const compress = (f: (body: Uint8Array, callback: (error: Error | null, result: Buffer) => void) => void, body: Uint8Array) =>
  Effect.callback<Uint8Array>((resume) =>
    f(body, (error, result) => resume(error === null ? Effect.succeed(exact(result)) : Effect.die(error)))
  )

/** `body` in `coding` at FAST_LEVELS, off the event loop (zlib's thread pool). */
export const compressedFast = (body: Uint8Array, coding: Compressed): Effect.Effect<Uint8Array> =>
  coding === "gzip" ? compress((b, cb) => gzip(b, fastGzip, cb), body) : compress((b, cb) => brotliCompress(b, fastBrotli(b), cb), body)

/**
 * Prepared with the best compression, off the event loop (zlib's thread pool):
 * for bodies made once and sent for the life of the process. Brotli's top
 * quality takes seconds on megabytes, so large bodies get quality 9.
 */
export const prepareBest = (body: Uint8Array, contentType: string): Effect.Effect<Prepared> => {
  if (body.byteLength < MIN_COMPRESS_BYTES) return Effect.succeed(prepareFast(body, contentType))
  const quality = body.byteLength > 1024 * 1024 ? 9 : 11
  return Effect.map(
    Effect.all(
      [
        compress((b, cb) => gzip(b, { level: 9 }, cb), body),
        compress(
          (b, cb) =>
            brotliCompress(
              b,
              { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: b.byteLength } },
              cb
            ),
          body
        )
      ],
      { concurrency: 2 }
    ),
    ([gzip, br]) => new Prepared(contentType, body, { gzip, br })
  )
}

/** The coding to send: the client's most wanted among those we have; brotli wins ties, then gzip. */
export const negotiate = (acceptEncoding: string | undefined, prepared: Prepared): Coding =>
  prepared.compressible ? codingFor(acceptEncoding) : "identity"

/** The coding a client wants most of those we make (Accept-Encoding); brotli wins ties, then gzip. */
export const codingFor = (acceptEncoding: string | undefined): Coding => {
  if (acceptEncoding === undefined) return "identity"
  let best: { coding: Coding; q: number } = { coding: "identity", q: 0.001 }
  let star = -1
  let identityQ = -1
  for (const part of acceptEncoding.split(",")) {
    const [token, ...params] = part.trim().toLowerCase().split(";")
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (!Number.isFinite(q)) continue
    if (token === "*") star = q
    else if (token === "identity") identityQ = q
    else if ((token === "br" || token === "gzip") && q > 0) {
      const better = q > best.q || (q === best.q && token === "br")
      if (better) best = { coding: token, q }
    }
  }
  if (best.coding === "identity" && star > 0) best = { coding: "br", q: star }
  return identityQ > best.q ? "identity" : best.coding
}

/** Each coding's strong validator: the identity tag with a suffix. */
export const tagFor = (etag: string, coding: Coding): string =>
  coding === "identity" ? etag : `${etag.slice(0, -1)}-${coding === "br" ? "br" : "gz"}"`

/** RFC 9110 weak comparison over a list of entity tags (or `*`). */
export const ifNoneMatchHits = (header: string | undefined, tags: ReadonlyArray<string>): boolean => {
  if (header === undefined) return false
  const bare = new Set(tags.map((t) => t.replace(/^W\//, "")))
  return header.split(",").some((candidate) => {
    const t = candidate.trim()
    return t === "*" || bare.has(t.replace(/^W\//, ""))
  })
}

/** What to answer one request with: 304 when its tag is current, else the ready bytes of the chosen coding. */
export const answerFor = (
  prepared: Prepared,
  requestHeaders: Readonly<Record<string, string | string[] | undefined>>,
  cacheControl: string,
  extraHeaders: Readonly<Record<string, string>> = {}
): { readonly status: 200 | 304; readonly headers: Record<string, string>; readonly body: Uint8Array | undefined } => {
  const accept = requestHeaders["accept-encoding"]
  const coding = negotiate(typeof accept === "string" ? accept : undefined, prepared)
  const etag = tagFor(prepared.etag, coding)
  const headers: Record<string, string> = { ...extraHeaders, etag, "cache-control": cacheControl }
  if (prepared.compressible) headers.vary = "Accept-Encoding"
  // Every coding's tag names the same content: a client that cached one coding revalidates with it.
  const match = requestHeaders["if-none-match"]
  if (typeof match === "string" && ifNoneMatchHits(match, [prepared.etag, tagFor(prepared.etag, "gzip"), tagFor(prepared.etag, "br")])) {
    return { status: 304, headers, body: undefined }
  }
  headers["content-type"] = prepared.contentType
  if (coding !== "identity") headers["content-encoding"] = coding
  return { status: 200, headers, body: coding === "identity" ? prepared.identity : prepared.encoded(coding) }
}

/** The response for one request, for Effect's HTTP stack. */
export const send = (
  prepared: Prepared,
  request: { readonly headers: Readonly<Record<string, string | undefined>> },
  cacheControl: string,
  extraHeaders: Readonly<Record<string, string>> = {}
): HttpServerResponse.HttpServerResponse => {
  const { body, headers, status } = answerFor(prepared, request.headers, cacheControl, extraHeaders)
  if (body === undefined) return HttpServerResponse.empty({ status, headers })
  const { "content-type": contentType, ...rest } = headers
  return HttpServerResponse.uint8Array(body, { contentType: contentType!, headers: rest })
}
