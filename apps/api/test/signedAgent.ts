/**
 * A signed agent for the tests, as a Web Bot Auth client is: an Ed25519 key,
 * its key directory served on loopback, and requests signed per RFC 9421 with
 * http-message-sig (the library the server verifies with, signing here).
 */
import { Effect } from "effect"
import { component, createSignatureSync } from "http-message-sig"
import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface AgentKey {
  readonly privateKey: KeyObject
  readonly kid: string
  readonly jwk: Record<string, string>
}

export const makeAgentKey = (): AgentKey => {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519")
  const { x } = publicKey.export({ format: "jwk" }) as { x: string }
  const kid = createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url")
  return { privateKey, kid, jwk: { kty: "OKP", crv: "Ed25519", x, kid, use: "sig" } }
}

export interface DirectoryOptions {
  /** Serve the keys at every path, not only the well-known one (a URL with a path names a key set). */
  readonly anyPath?: boolean
  /** Send the body one byte a second, as a hostile directory that never quite times out would. */
  readonly trickle?: boolean
}

/** A key directory on 127.0.0.1 serving `keys`; counts the requests it gets (`fetches`). */
export const serveKeyDirectory = (keys: ReadonlyArray<AgentKey>, options: DirectoryOptions = {}) =>
  Effect.acquireRelease(
    Effect.callback<{ origin: string; fetches: () => number; close: () => void }>((resume) => {
      let fetches = 0
      const timers = new Set<NodeJS.Timeout>()
      const server = createServer((req, res) => {
        fetches++
        if (options.anyPath !== true && req.url !== "/.well-known/http-message-signatures-directory") {
          res.writeHead(404).end()
          return
        }
        res.writeHead(200, {
          "content-type": "application/http-message-signatures-directory+json",
          "cache-control": "max-age=300"
        })
        const body = JSON.stringify({ keys: keys.map((k) => k.jwk) })
        if (options.trickle !== true) {
          res.end(body)
          return
        }
        let sent = 0
        const timer = setInterval(() => {
          if (res.destroyed || sent >= body.length) {
            clearInterval(timer)
            timers.delete(timer)
            res.end()
            return
          }
          res.write(body[sent++]!)
        }, 1_000)
        timers.add(timer)
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        const close = () => {
          for (const timer of timers) clearInterval(timer)
          server.closeAllConnections()
          server.close()
        }
        resume(Effect.succeed({ origin: `http://127.0.0.1:${port}`, fetches: () => fetches, close }))
      })
    }),
    ({ close }) => Effect.sync(close)
  )

export interface SignOptions {
  readonly key: AgentKey
  readonly directory: string
  /** The URL the request goes to (its authority is signed). */
  readonly url: string
  readonly body: string
  readonly createdAt?: number
  readonly lifetime?: number
  /** The nonce (a new one by default); null: none (a signature that could be sent again). */
  readonly nonce?: string | null
  /** Sign for this authority instead of the URL's (a request signed for another host). */
  readonly authority?: string
  readonly tag?: string
}

const digestOf = (body: string) => `sha-256=:${createHash("sha256").update(body).digest("base64")}:`

/** The headers of a signed POST of `body` (JSON) to `url`. */
export const signedHeaders = (options: SignOptions): Record<string, string> => {
  const created = options.createdAt ?? Math.floor(Date.now() / 1000)
  const url = new URL(options.url)
  const fields = {
    "content-type": "application/json",
    "content-digest": digestOf(options.body),
    "signature-agent": `sig1="${options.directory}"`
  }
  const target = options.authority === undefined ? url : new URL(`${url.protocol}//${options.authority}${url.pathname}${url.search}`)
  const { signature, signatureInput } = createSignatureSync(
    {
      kind: "request",
      method: "POST",
      targetUri: target.href,
      fields: Object.entries(fields).map(([name, value]) => ({ name, value }))
    },
    {
      label: "sig1",
      components: ["@authority", component("signature-agent", { key: "sig1" }), "content-digest"],
      parameters: {
        created,
        expires: created + (options.lifetime ?? 60),
        keyid: options.key.kid,
        ...(options.nonce === null ? {} : { nonce: options.nonce ?? crypto.randomUUID() }),
        tag: options.tag ?? "web-bot-auth"
      },
      signer: { algorithm: "ed25519", sign: (data) => new Uint8Array(sign(null, data, options.key.privateKey)) }
    }
  )
  return { ...fields, signature, "signature-input": signatureInput }
}
