/**
 * Key directories of signed agents (Web Bot Auth): the JSON Web Key Sets at
 * the URLs their requests name in `Signature-Agent`. The URL comes from the
 * client, so fetching it is done as if the client were hostile: HTTPS only
 * (plain HTTP for the hosts SIGNED_AGENTS_HTTP_HOSTS names, for tests on
 * loopback), never to a private or loopback address, no redirects, one 2 s
 * deadline for the whole fetch (connect, headers and body: a directory that
 * trickles its answer is cut off), 64 KiB and 16 keys at most, a URL of at most
 * 512 characters. Directories are cached for their Cache-Control max-age
 * (between a minute and a day), failures for 30 s, and concurrent lookups of
 * one URL share one fetch. Each fetch is paid for from the client's vote budget
 * before it starts (callers.ts), so a client cannot make more fetches than votes.
 */
import { Cache, Context, Duration, Effect, Exit, Layer, Option, Schema } from "effect"
import { createHash, createPublicKey, type KeyObject } from "node:crypto"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { get as httpGet, type IncomingMessage } from "node:http"
import { get as httpsGet } from "node:https"
import { BlockList, isIP, type LookupFunction } from "node:net"
import { FairShare } from "../clients/fairShare.ts"

export const WELL_KNOWN_PATH = "/.well-known/http-message-signatures-directory"

/** One deadline for the whole fetch: connecting, the headers and the body. */
const DEADLINE = Duration.seconds(2)
export const MAX_URL_LENGTH = 512
const MAX_BYTES = 64 * 1024
const MAX_KEYS = 16
const MIN_TTL = Duration.minutes(1)
const MAX_TTL = Duration.days(1)
const DEFAULT_TTL = Duration.minutes(5)
const FAILURE_TTL = Duration.seconds(30)

export class KeyDirectoryUnusable extends Schema.TaggedError<KeyDirectoryUnusable>()("KeyDirectoryUnusable", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `The key directory ${this.url} cannot be used: ${this.reason}`
  }
}

/** A directory's keys by key id (each key's RFC 7638 thumbprint). */
export type DirectoryKeys = ReadonlyMap<string, KeyObject>

export class KeyDirectories extends Context.Service<
  KeyDirectories,
  {
    /** The directory URL a `Signature-Agent` value stands for, or why it cannot be one. */
    readonly resolve: (signatureAgent: string) => Effect.Effect<string, KeyDirectoryUnusable>
    /** The directory's keys, from the cache, else fetched once `payForFetch` has succeeded. */
    readonly keys: <E>(url: string, payForFetch: Effect.Effect<void, E>) => Effect.Effect<DirectoryKeys, KeyDirectoryUnusable | E>
  }
>()("@productdir/edge/KeyDirectories") {}

/** Addresses a directory must never be fetched from: this host, its networks, and nothing routable. */
const PRIVATE = (() => {
  const list = new BlockList()
  for (const [net, prefix] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["224.0.0.0", 3]
  ] as const)
    list.addSubnet(net, prefix, "ipv4")
  for (const [net, prefix] of [
    ["::", 127],
    ["::ffff:0:0", 96],
    ["64:ff9b::", 96],
    ["fc00::", 7],
    ["fe80::", 10],
    ["ff00::", 8]
  ] as const)
    list.addSubnet(net, prefix, "ipv6")
  return list
})()

export const isPrivateAddress = (address: string): boolean => {
  const family = isIP(address)
  return family === 0 || PRIVATE.check(address, family === 4 ? "ipv4" : "ipv6")
}

/**
 * Answers a lookup with the public ones of a name's `addresses`, or fails when it has none: checked after resolving,
 * so a name that resolves (or rebinds) to a private address is never connected to. Shared by every outbound fetch a
 * client can aim (key directories here, publishers' proofs).
 */
export const answerPublic = (
  hostname: string,
  addresses: ReadonlyArray<LookupAddress>,
  all: boolean | undefined,
  callback: Parameters<LookupFunction>[2]
): void => {
  const usable = addresses.filter((a) => !isPrivateAddress(a.address))
  const first = usable[0]
  if (addresses.length === 0) callback(Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" }), "", 0)
  else if (first === undefined) callback(new Error(`${hostname} resolves only to private addresses`), "", 0)
  else if (all) (callback as unknown as (e: null, a: Array<LookupAddress>) => void)(null, usable)
  else callback(null, first.address, first.family)
}

/** DNS resolution (the system's) that refuses to connect to a private address. */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: Array<LookupAddress>) => {
    if (error) return callback(error, "", 0)
    answerPublic(hostname, addresses, options.all, callback)
  })
}

/** RFC 7638 thumbprint of an Ed25519 JWK. */
export const thumbprint = (x: string): string => createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url")

const parseKeys = (body: string): DirectoryKeys => {
  const parsed: unknown = JSON.parse(body)
  const keys =
    typeof parsed === "object" && parsed !== null && Array.isArray((parsed as { keys?: unknown }).keys)
      ? (parsed as { keys: Array<unknown> }).keys
      : undefined
  if (keys === undefined) throw new Error('the body is not a JSON Web Key Set ({"keys": [...]})')
  const out = new Map<string, KeyObject>()
  for (const key of keys.slice(0, MAX_KEYS)) {
    if (typeof key !== "object" || key === null) continue
    const { kty, crv, x, kid } = key as Record<string, unknown>
    if (kty !== "OKP" || crv !== "Ed25519" || typeof x !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(x)) continue
    const id = thumbprint(x)
    // A key id that is not the key's own thumbprint could name another key: such a key is skipped.
    if (kid !== undefined && kid !== id) continue
    out.set(id, createPublicKey({ key: { kty, crv, x }, format: "jwk" }))
  }
  if (out.size === 0) throw new Error("it holds no Ed25519 key whose kid is its RFC 7638 thumbprint")
  return out
}

const maxAgeOf = (cacheControl: string | undefined): Duration.Duration => {
  const match = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl ?? "")
  if (match === null) return DEFAULT_TTL
  return Duration.clamp(Duration.seconds(Number(match[1])), { minimum: MIN_TTL, maximum: MAX_TTL })
}

interface Fetched {
  readonly keys: DirectoryKeys
  readonly ttl: Duration.Duration
}

const fetchDirectory = (url: URL, allowPlainHttp: boolean) =>
  Effect.callback<Fetched, KeyDirectoryUnusable>((resume, signal) => {
    const fail = (reason: string) => resume(Effect.fail(new KeyDirectoryUnusable({ url: url.href, reason })))
    const options = {
      signal,
      headers: { accept: "application/http-message-signatures-directory+json, application/json" },
      // Hosts allowed over plain HTTP are the operator's own (tests on loopback): their addresses are not checked.
      ...(allowPlainHttp ? {} : { lookup: publicOnlyLookup })
    }
    const onResponse = (response: IncomingMessage) => {
      if (response.statusCode !== 200) {
        response.resume()
        return fail(
          response.statusCode !== undefined && response.statusCode >= 300 && response.statusCode < 400
            ? `it redirects (${response.statusCode}); redirects are not followed`
            : `it answered ${response.statusCode}`
        )
      }
      const chunks: Array<Buffer> = []
      let size = 0
      response.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BYTES) {
          response.destroy()
          fail(`it is larger than ${MAX_BYTES / 1024} KiB`)
        } else chunks.push(chunk)
      })
      response.on("error", (error) => fail(error.message))
      response.on("end", () => {
        if (size > MAX_BYTES) return
        try {
          resume(
            Effect.succeed({ keys: parseKeys(Buffer.concat(chunks).toString("utf8")), ttl: maxAgeOf(response.headers["cache-control"]) })
          )
        } catch (error) {
          fail(error instanceof Error ? error.message : String(error))
        }
      })
    }
    const request = url.protocol === "https:" ? httpsGet(url, options, onResponse) : httpGet(url, options, onResponse)
    request.on("error", (error) => fail(error.message))
  }).pipe(
    // Interrupting the callback aborts its signal: the request and its socket are destroyed.
    Effect.timeoutOrElse({
      duration: DEADLINE,
      orElse: () =>
        Effect.fail(
          new KeyDirectoryUnusable({ url: url.href, reason: `it did not answer in full within ${Duration.toSeconds(DEADLINE)} s` })
        )
    })
  )

export const layer = (options: { readonly httpHosts: ReadonlyArray<string> }) =>
  Layer.effect(
    KeyDirectories,
    Effect.gen(function* () {
      // The API's fair share of work, when there is one (clients/fairShare.ts): a fetch gives its turn back while it waits.
      const share = yield* Effect.serviceOption(FairShare)
      const plainHttp = new Set(options.httpHosts.map((h) => h.toLowerCase()))
      const allowsPlainHttp = (url: URL) => plainHttp.has(url.host.toLowerCase()) || plainHttp.has(url.hostname.toLowerCase())

      const resolve = (signatureAgent: string) =>
        Effect.suspend(() => {
          if (signatureAgent.length > MAX_URL_LENGTH) {
            return Effect.fail(
              new KeyDirectoryUnusable({
                url: `${signatureAgent.slice(0, 64)}…`,
                reason: `its URL is longer than ${MAX_URL_LENGTH} characters`
              })
            )
          }
          const refuse = (reason: string) => Effect.fail(new KeyDirectoryUnusable({ url: signatureAgent, reason }))
          let url: URL
          try {
            url = new URL(signatureAgent)
          } catch {
            return refuse("it is not a URL")
          }
          if (url.username !== "" || url.password !== "" || url.hash !== "") return refuse("it carries credentials or a fragment")
          if (url.protocol !== "https:" && !(url.protocol === "http:" && allowsPlainHttp(url))) {
            return refuse("key directories are fetched over HTTPS only")
          }
          if (
            isIP(url.hostname.replace(/^\[|\]$/g, "")) !== 0 &&
            !allowsPlainHttp(url) &&
            isPrivateAddress(url.hostname.replace(/^\[|\]$/g, ""))
          ) {
            return refuse("it is a private address")
          }
          // An origin alone stands for its well-known directory; a URL with a path names the key set itself.
          if (url.pathname === "/" && url.search === "") url.pathname = WELL_KNOWN_PATH
          return Effect.succeed(url.href)
        })

      const directories = yield* Cache.makeWith(
        (href: string) =>
          Effect.suspend(() => {
            const url = new URL(href)
            return fetchDirectory(url, allowsPlainHttp(url))
          }),
        {
          capacity: 1_000,
          timeToLive: (exit) => (Exit.isSuccess(exit) ? exit.value.ttl : FAILURE_TTL)
        }
      )

      return KeyDirectories.of({
        resolve,
        keys: (url, payForFetch) =>
          Effect.gen(function* () {
            // Two requests that both find it missing may both pay: a fetch is never made unpaid.
            if (yield* Cache.has(directories, url)) return (yield* Cache.get(directories, url)).keys
            yield* payForFetch
            // A wait on a server elsewhere holds no turn of this process's work (clients/fairShare.ts).
            const fetched = Cache.get(directories, url)
            return (yield* Option.match(share, { onNone: () => fetched, onSome: (s) => s.released(fetched) })).keys
          })
      })
    })
  )
