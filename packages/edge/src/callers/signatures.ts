/**
 * Signed agents (docs/api.md, "Voter identity"): a request signed per HTTP
 * Message Signatures (RFC 9421) as the Web Bot Auth drafts describe counts as
 * the agent its key directory vouches for, without registration. What a
 * signature must cover and carry, in order of the checks:
 *
 * - a `Signature-Input` member tagged `web-bot-auth` (others are not ours to judge: the request is unsigned to us);
 * - the `Signature-Agent` member of the same label, naming the key directory (keyDirectory.ts);
 * - `@authority` (this service's: PUBLIC_URL's, else the Host the request came to), the
 *   `Signature-Agent` member, and `Content-Digest`, which must be the SHA-256 of the body as received;
 * - `created`, `expires` (at most an hour apart, checked with 5 s of skew), `keyid` (a key of the directory);
 * - an Ed25519 signature that verifies, and a `nonce`, used once (kept in the store, so every process
 *   of the directory refuses a replay, until the signature expires). Required: a signed vote without one
 *   could be sent again by anyone who saw it, for as long as it is valid, and undo the agent's later change
 *   of that vote.
 *
 * A request that carries any of Web Bot Auth's headers (`Signature`, `Signature-Agent`) without a signature
 * we can judge meant to prove an agent: it is refused, never counted as its address's vote. Signatures
 * tagged otherwise (a CDN's, with their own Signature-Input) are not ours to judge.
 *
 * Everything that can be judged without the key (the labels, what the signature covers, its times, its
 * algorithm) is judged before the key directory is looked up or fetched: a signature refused on its own
 * terms costs no outbound request, and is refused for its own fault, not the directory's.
 *
 * Everything a client sends here is bounded before it is parsed or kept: the
 * signature headers, the key id, the nonce and the directory URL (MAX_* below).
 * The work a signature costs (a directory fetch, a nonce row) is paid for from
 * the client's vote budget before it is done (callers.ts).
 *
 * Parsing and verifying the signature is http-message-sig's (pinned); the
 * digest, the directory and the replay check are ours.
 */
import { Clock, Context, Effect, Layer, Schema } from "effect"
import {
  component,
  isSignatureError,
  type RequestDescriptor,
  type Verifier,
  type VerifySignatureOptions,
  verifySignature
} from "http-message-sig"
import { createHash, timingSafeEqual, verify as verifyEd25519 } from "node:crypto"
import { parseDictionary, Token } from "structured-headers"
import { Nonces, type SignedIdentity, type StoreError } from "@productdir/domain"
import { KeyDirectories, KeyDirectoryUnusable } from "./keyDirectory.ts"

export const WEB_BOT_AUTH_TAG = "web-bot-auth"
const MAX_WINDOW_SECONDS = 3_600
const CLOCK_SKEW_SECONDS = 5

/**
 * How long a nonce is kept: past the last moment any process could still accept its signature. The
 * verifier reads the time in whole seconds, so a signature passes until the end of second expires + skew,
 * a second later than expires + skew to the millisecond (a replay in that second would take the row over); and
 * another process's clock may be up to the skew behind this one's.
 */
const nonceKeptUntil = (expires: number): Date => new Date((expires + 2 * CLOCK_SKEW_SECONDS + 1) * 1000)

/** Bytes of each signature header a request may send: several signatures fit, a flood does not. */
export const MAX_SIGNATURE_HEADER_BYTES = 2_048
const SIGNATURE_HEADERS = ["signature-input", "signature", "signature-agent", "content-digest"] as const
/** A key id is an RFC 7638 thumbprint (43 characters); a nonce is a few dozen. */
export const MAX_KEY_ID_LENGTH = 128
export const MAX_NONCE_LENGTH = 128

/** A signature that was meant to prove an agent and does not: the request is refused, not counted anonymously. */
export class SignatureRefused extends Schema.TaggedError<SignatureRefused>()("SignatureRefused", {
  reason: Schema.String
}) {
  override get message() {
    return `The request's signature does not verify: ${this.reason}`
  }
}

/** What the verification reads of a request. */
export interface SignedRequest {
  readonly method: string
  /** Path and query, as received. */
  readonly url: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: Uint8Array
}

export class SignedAgents extends Context.Service<
  SignedAgents,
  {
    /**
     * True when the request carries a Web Bot Auth signature, an unreadable Signature-Input, or a `Signature`
     * or `Signature-Agent` without any Signature-Input: it meant to prove an agent, and must then verify.
     */
    readonly isSigned: (headers: Readonly<Record<string, string | undefined>>) => boolean
    /**
     * The identity a signature proves; its nonce, when it has one, is used up. `payForFetch` runs before a key
     * directory that is not cached is fetched, and its failure refuses the request with nothing fetched.
     */
    readonly verify: <E>(
      request: SignedRequest,
      payForFetch: Effect.Effect<void, E>
    ) => Effect.Effect<SignedIdentity, SignatureRefused | StoreError | E>
  }
>()("@productdir/edge/SignedAgents") {}

/**
 * What the request's Signature-Input is to us: absent or only other kinds of signatures
 * (a CDN's, say: not ours to judge), a Web Bot Auth signature under `label`, or unreadable.
 */
const signatureInputOf = (
  signatureInput: string | undefined
): { readonly _tag: "None" } | { readonly _tag: "WebBotAuth"; readonly label: string } | { readonly _tag: "Malformed" } => {
  if (signatureInput === undefined) return { _tag: "None" }
  if (signatureInput.length > MAX_SIGNATURE_HEADER_BYTES) return { _tag: "Malformed" }
  try {
    for (const [label, member] of parseDictionary(signatureInput)) {
      if (member[1].get("tag") === WEB_BOT_AUTH_TAG) return { _tag: "WebBotAuth", label }
    }
    return { _tag: "None" }
  } catch {
    return { _tag: "Malformed" }
  }
}

const paramsOf = (signatureInput: string, label: string) => parseDictionary(signatureInput).get(label)![1]

const digestMatches = (header: string | undefined, body: Uint8Array): boolean => {
  if (header === undefined) return false
  let member: unknown
  try {
    member = parseDictionary(header).get("sha-256")?.[0]
  } catch {
    return false
  }
  if (!(member instanceof ArrayBuffer)) return false
  const expected = createHash("sha256").update(body).digest()
  const given = Buffer.from(member)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** What the first pass's verifier throws when it is asked for the key: every check before the key's has passed. */
const KEY_NOT_YET = new Error("no key is looked up before the signature's other checks pass")

/** A refusal in the verifier's words. */
const refusalOf = (error: unknown): SignatureRefused =>
  new SignatureRefused({
    reason: isSignatureError(error) ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}` : String(error)
  })

/** Header values that are not ASCII make the library refuse the whole message; no signature can cover them anyway. */
const asciiFields = (headers: Readonly<Record<string, string | undefined>>) =>
  Object.entries(headers).flatMap(([name, value]) => (value !== undefined && /^[\u0020-\u007e\t]*$/.test(value) ? [{ name, value }] : []))

export const layer = (options: {
  /** The origin the request was sent to (`https://host[:port]`): a signature for another host must fail. */
  readonly origin: (headers: Readonly<Record<string, string | undefined>>) => string | undefined
}) =>
  Layer.effect(
    SignedAgents,
    Effect.gen(function* () {
      const directories = yield* KeyDirectories
      const nonces = yield* Nonces

      const verify = <E>(request: SignedRequest, payForFetch: Effect.Effect<void, E>) =>
        Effect.gen(function* () {
          const refuse = (reason: string) => Effect.fail(new SignatureRefused({ reason }))
          const headers = request.headers
          for (const name of SIGNATURE_HEADERS) {
            if ((headers[name]?.length ?? 0) > MAX_SIGNATURE_HEADER_BYTES) {
              return yield* refuse(`the ${name} header is longer than ${MAX_SIGNATURE_HEADER_BYTES} bytes`)
            }
          }
          const input = signatureInputOf(headers["signature-input"])
          if (input._tag === "Malformed") return yield* refuse("Signature-Input is not a structured dictionary (RFC 8941)")
          if (input._tag === "None") {
            return yield* refuse(
              headers["signature-input"] === undefined
                ? `a ${headers.signature === undefined ? "Signature-Agent" : "Signature"} header comes without Signature-Input`
                : "no Signature-Input member is tagged web-bot-auth"
            )
          }
          const label = input.label
          const params = paramsOf(headers["signature-input"]!, label)
          const keyId = params.get("keyid")
          const created = params.get("created")
          const expires = params.get("expires")
          const nonce = params.get("nonce")
          if (typeof keyId !== "string") return yield* refuse("the signature names no keyid")
          if (keyId.length > MAX_KEY_ID_LENGTH) return yield* refuse(`the keyid is longer than ${MAX_KEY_ID_LENGTH} characters`)
          if (nonce === undefined) {
            return yield* refuse(
              "the signature carries no nonce: sign each request with a nonce of your own, used once, so that nobody who sees it can send it again"
            )
          }
          if (typeof nonce !== "string" || nonce.length > MAX_NONCE_LENGTH) {
            return yield* refuse(`the nonce must be a string of at most ${MAX_NONCE_LENGTH} characters`)
          }
          if (typeof created !== "number" || typeof expires !== "number") return yield* refuse("the signature needs created and expires")
          if (expires - created > MAX_WINDOW_SECONDS) {
            return yield* refuse(`created and expires are more than ${MAX_WINDOW_SECONDS / 60} minutes apart`)
          }
          let agentMember: unknown
          try {
            agentMember = parseDictionary(headers["signature-agent"] ?? "").get(label)?.[0]
          } catch {
            return yield* refuse("Signature-Agent is not a structured dictionary")
          }
          const agentUrl = agentMember instanceof Token ? agentMember.toString() : agentMember
          if (typeof agentUrl !== "string") return yield* refuse(`Signature-Agent has no member ${label} naming the key directory`)
          if (!digestMatches(headers["content-digest"], request.body)) {
            return yield* refuse("Content-Digest is missing or is not the sha-256 of the body")
          }
          const origin = options.origin(headers)
          if (origin === undefined) return yield* refuse("the request names no host")

          const descriptor: RequestDescriptor = {
            kind: "request",
            method: request.method,
            targetUri: `${origin}${request.url}`,
            fields: asciiFields(headers)
          }
          /** Verified at `now`: read again after a directory's fetch, which may take seconds. */
          const verifyWith = (resolveVerifier: VerifySignatureOptions<Verifier>["resolveVerifier"]) =>
            Effect.flatMap(Clock.currentTimeMillis, (millis) =>
              Effect.tryPromise({
                try: () =>
                  verifySignature(descriptor, {
                    label,
                    policy: {
                      algorithms: ["ed25519"],
                      requiredComponents: ["@authority", component("signature-agent", { key: label }), "content-digest"],
                      requiredParameters: ["created", "expires", "keyid", "tag"],
                      clockSkew: CLOCK_SKEW_SECONDS,
                      now: Math.floor(millis / 1000)
                    },
                    resolveVerifier
                  }),
                catch: (error) => error
              })
            )
          // The verifier checks everything but the signature's bytes (its labels, what it covers, its times, its
          // algorithm) before it asks for the key. Asked first with no key to give, it refuses what it would refuse
          // anyway, in its own words, before a key directory is looked up or fetched for it: else an expired signature
          // would cost an outbound fetch, and be refused as the directory's fault when that failed.
          yield* verifyWith(() => {
            throw KEY_NOT_YET
          }).pipe(
            Effect.catch((error) => (isSignatureError(error) && error.cause === KEY_NOT_YET ? Effect.void : Effect.fail(refusalOf(error))))
          )

          const directory = yield* Effect.mapError(directories.resolve(agentUrl), (e) => new SignatureRefused({ reason: e.message }))
          const keys = yield* directories.keys(directory, payForFetch).pipe(
            Effect.catchIf(
              (e): e is KeyDirectoryUnusable => e instanceof KeyDirectoryUnusable,
              (e) => Effect.fail(new SignatureRefused({ reason: e.message }))
            )
          )
          const key = keys.get(keyId)
          if (key === undefined) return yield* refuse(`the key directory ${directory} has no key ${keyId}`)

          yield* verifyWith((candidate) => {
            if (candidate.parameters.tag !== WEB_BOT_AUTH_TAG || candidate.parameters.keyid !== keyId) {
              throw new Error("the signature changed under verification")
            }
            return { algorithm: "ed25519", verify: (data, signature) => verifyEd25519(null, data, key, signature) }
          }).pipe(Effect.mapError(refusalOf))
          // Only a signature that verified uses its nonce up: nobody can spend another agent's nonces.
          const claimed = yield* nonces.claim(`${directory} ${keyId} ${nonce}`, nonceKeptUntil(expires))
          if (!claimed) return yield* refuse("this nonce was used before: the request is a replay")
          return { keyDirectory: directory, keyId } satisfies SignedIdentity
        })

      return SignedAgents.of({
        isSigned: (headers) =>
          headers["signature-input"] === undefined
            ? headers.signature !== undefined || headers["signature-agent"] !== undefined
            : signatureInputOf(headers["signature-input"])._tag !== "None",
        verify
      })
    })
  )
