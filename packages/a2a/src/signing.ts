/**
 * A2A card signatures (A2A 1.0 §8.4): a JWS whose payload is the card itself,
 * canonical (RFC 8785) and without `signatures`, detached: the card carries
 * only the protected header and the signature. The protected header names the
 * algorithm, `typ: JOSE`, the key (`kid`, its RFC 7638 thumbprint) and where
 * its public half is published (`jku`: the JWK Set at /.well-known/jwks.json).
 *
 * The key is A2A_SIGNING_KEY (a private JWK), else one generated once and kept
 * in the store, as VOTER_SECRET's default is: every API process on one
 * database signs with the same key, so a client verifies whichever card it got.
 */
import canonicalize from "canonicalize"
import { Config, ConfigProvider, Context, Effect, Layer, Option, Redacted } from "effect"
import { Settings } from "@productdir/domain"
import type { AgentCardSignature } from "@productdir/contract"
import { calculateJwkThumbprint, exportJWK, FlattenedSign, generateKeyPair, importJWK, type JWK } from "jose"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { JWKS_PATH } from "./card.ts"

/** The store's name for the generated key. */
const STORED_KEY = "a2a_signing_key"
/** What a key is generated as when none is configured: ES256 is what every JOSE library verifies. */
const DEFAULT_ALG = "ES256"

export type Signed<C> = C & { readonly signatures: ReadonlyArray<typeof AgentCardSignature.Type> }

export class CardSigner extends Context.Service<
  CardSigner,
  {
    /** The card (1.0's or 0.3's) with its signature, for the base URL its interfaces and `jku` use. */
    readonly sign: <C extends object>(card: C, base: string) => Effect.Effect<Signed<C>>
    /** The public key set (`keys`: the one public JWK, with `kid`, `alg` and `use`). */
    readonly jwks: { readonly keys: ReadonlyArray<JWK> }
  }
>()("@productdir/a2a/CardSigner") {}

/** The JWS algorithm a private JWK signs with: its own `alg`, else the usual one of its key type. */
const algorithmOf = (jwk: JWK): string | undefined => {
  if (typeof jwk.alg === "string") return jwk.alg
  if (jwk.kty === "EC") return { "P-256": "ES256", "P-384": "ES384", "P-521": "ES512" }[jwk.crv ?? ""]
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "Ed25519"
  if (jwk.kty === "RSA") return "RS256"
  return undefined
}

/** A bad A2A_SIGNING_KEY is a setting that cannot be used: the server says so in one line and does not start. */
const invalidKey = (why: string) =>
  Effect.fail(
    new Config.ConfigError(
      new ConfigProvider.SourceError({
        message: `A2A_SIGNING_KEY must be a private JWK (an EC P-256/P-384/P-521, Ed25519 or RSA key with its "d"), as JSON: ${why}`
      })
    )
  )

const parseJwk = (text: string) =>
  Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => "it is not JSON" }).pipe(
    Effect.flatMap((value) =>
      typeof value === "object" && value !== null && !Array.isArray(value) && typeof (value as JWK).d === "string"
        ? Effect.succeed(value as JWK)
        : Effect.fail('it is not a JSON object with a private part ("d")')
    )
  )

const generated = Effect.promise(async () => {
  const { privateKey } = await generateKeyPair(DEFAULT_ALG, { extractable: true })
  return JSON.stringify({ ...(await exportJWK(privateKey)), alg: DEFAULT_ALG })
})

const encoder = new TextEncoder()

/**
 * What the official JS SDK's client (@a2a-js/sdk 1.3) verifies of a 1.0 card, when that is not the card itself: its
 * resolver parses a card whose security schemes are protobuf JSON (no `type`) into protobuf objects, and the
 * canonical form it then makes of those loses each scheme (a `oneof`; a2aproject/a2a-js#663), so no signature over
 * the whole card verifies there. Such a card is also signed without them: the SDK's own client path then verifies
 * it, and every other field stays covered. (Removing the optional Bearer scheme from a card would go unnoticed by
 * that signature; docs/api.md, "A2A", says so.)
 */
const asSdkClientVerifies = (card: object): object | undefined => {
  const { securitySchemes, ...rest } = card as { readonly securitySchemes?: Readonly<Record<string, object>> }
  const [first] = Object.values(securitySchemes ?? {})
  return first !== undefined && !("type" in first) ? rest : undefined
}

/** Cards signed per base URL (the interfaces and `jku` are absolute); a handful of hosts in practice, bounded anyway. */
const SIGNED_CARDS_KEPT = 64

export const layer = Layer.effect(
  CardSigner,
  Effect.gen(function* () {
    const config = yield* ApiConfig
    const text = Option.isSome(config.a2aSigningKey)
      ? Redacted.value(config.a2aSigningKey.value)
      : yield* Effect.flatMap(generated, (fresh) => Settings.use((settings) => settings.getOrInit(STORED_KEY, fresh))).pipe(Effect.orDie)
    const jwk = yield* parseJwk(text).pipe(Effect.catch(invalidKey))
    const alg = algorithmOf(jwk)
    if (alg === undefined) return yield* invalidKey(`no JWS algorithm fits its key type (kty ${String(jwk.kty)}); set its "alg"`)
    const privateKey = yield* Effect.tryPromise(() => importJWK(jwk, alg)).pipe(Effect.catch((error) => invalidKey(String(error))))
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, oth: _oth, key_ops: _ops, ext: _ext, ...publicJwk } = jwk
    const kid = yield* Effect.promise(() => calculateJwkThumbprint(publicJwk))
    const published: JWK = { ...publicJwk, kid, alg, use: "sig" }

    const signed = new Map<string, Signed<object>>()
    const sign = <C extends object>(card: C, base: string): Effect.Effect<Signed<C>> =>
      Effect.suspend(() => {
        const key = JSON.stringify(card)
        const known = signed.get(key)
        // The key is the card's whole JSON: a card signed under it is this card, signed.
        if (known !== undefined) return Effect.succeed(known as Signed<C>)
        // RFC 8785: the card as served, less its signatures (it has none yet), each field set; then, for a 1.0 card
        // with security schemes, the card as the JS SDK's client verifies it.
        const payloads = [card, asSdkClientVerifies(card)].flatMap((signed) =>
          signed === undefined ? [] : [encoder.encode(canonicalize(signed) ?? "")]
        )
        return Effect.promise(() =>
          Promise.all(
            payloads.map((payload) =>
              new FlattenedSign(payload).setProtectedHeader({ alg, typ: "JOSE", kid, jku: `${base}${JWKS_PATH}` }).sign(privateKey)
            )
          )
        ).pipe(
          Effect.map(
            (jwss): Signed<C> => ({
              ...card,
              signatures: jwss.map((jws) => ({ protected: jws.protected ?? "", signature: jws.signature }))
            })
          ),
          Effect.tap((result) =>
            Effect.sync(() => {
              if (signed.size >= SIGNED_CARDS_KEPT) signed.clear()
              signed.set(key, result)
            })
          )
        )
      })
    return CardSigner.of({ sign, jwks: { keys: [published] } })
  })
)
