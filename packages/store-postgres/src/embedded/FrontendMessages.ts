/**
 * Splits a PostgreSQL frontend byte stream into whole messages: first the
 * untyped startup packets (length, code), then typed messages (type byte,
 * length). Both the in-process stream and the local socket hand PGlite one
 * whole message at a time.
 */

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102

export type FrontendMessage =
  /** SSL or GSS encryption asked for: answer "N" (not supported on a local stream). */
  | { readonly _tag: "EncryptionRequest" }
  /** A cancel request: PGlite runs one statement at a time and cannot cancel it. */
  | { readonly _tag: "CancelRequest" }
  /** The startup packet, or any typed message: hand it to PGlite as it is. */
  | { readonly _tag: "Message"; readonly type: number | undefined; readonly bytes: Uint8Array }
  /** Terminate ('X'): the client is leaving. */
  | { readonly _tag: "Terminate" }

const TERMINATE = 0x58

export class FrontendFramer {
  private pending: Buffer = Buffer.alloc(0)
  private started = false

  push(chunk: Buffer): Array<FrontendMessage> {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    const out: Array<FrontendMessage> = []
    for (;;) {
      if (!this.started) {
        if (this.pending.length < 8) break
        const length = this.pending.readInt32BE(0)
        if (this.pending.length < length) break
        const message = this.pending.subarray(0, length)
        this.pending = this.pending.subarray(length)
        const code = message.readInt32BE(4)
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) out.push({ _tag: "EncryptionRequest" })
        else if (code === CANCEL_REQUEST) out.push({ _tag: "CancelRequest" })
        else {
          this.started = true
          out.push({ _tag: "Message", type: undefined, bytes: message })
        }
      } else {
        if (this.pending.length < 5) break
        const length = this.pending.readInt32BE(1) + 1
        if (this.pending.length < length) break
        const type = this.pending[0]!
        const bytes = this.pending.subarray(0, length)
        this.pending = this.pending.subarray(length)
        out.push(type === TERMINATE ? { _tag: "Terminate" } : { _tag: "Message", type, bytes })
      }
    }
    return out
  }
}

/** The name of the statement a Parse ('P') message prepares; "" is the unnamed one. */
export const parsedStatementName = (bytes: Uint8Array): string => {
  const end = bytes.indexOf(0, 5)
  return Buffer.from(bytes.subarray(5, end === -1 ? 5 : end)).toString("utf8")
}

/** The statement a Close ('C') message closes, when it closes a statement ('S') rather than a portal. */
export const closedStatementName = (bytes: Uint8Array): string | undefined => {
  if (bytes[5] !== 0x53) return undefined
  const end = bytes.indexOf(0, 6)
  return Buffer.from(bytes.subarray(6, end === -1 ? 6 : end)).toString("utf8")
}

export const PARSE = 0x50
export const CLOSE = 0x43
