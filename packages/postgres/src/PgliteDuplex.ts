/**
 * A Postgres wire-protocol stream into an in-process PGlite database, so the
 * same `@effect/sql-pg` code runs on the embedded store with no socket.
 *
 * PGlite is one backend session: use it through one client connection
 * (maxConnections 1). Messages are framed here and handed over one at a time.
 */
import type { PGlite } from "@electric-sql/pglite"
import { Duplex } from "node:stream"

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102
const TERMINATE = 0x58 // 'X'

export class PgliteDuplex extends Duplex {
  private pending: Buffer = Buffer.alloc(0)
  private started = false
  private work: Promise<void> = Promise.resolve()
  private readonly db: PGlite

  constructor(db: PGlite) {
    super()
    this.db = db
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    const messages = this.frame()
    this.work = this.work.then(async () => {
      for (const message of messages) await this.handle(message)
    })
    this.work.then(() => callback(), callback)
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A connection that dies mid-transaction must not leave the shared session inside it.
    this.work.then(() => this.rollback()).then(() => callback(error), () => callback(error))
  }

  /** Splits the buffered bytes into whole frontend messages. */
  private frame(): Array<Buffer> {
    const out: Array<Buffer> = []
    for (;;) {
      if (!this.started) {
        if (this.pending.length < 8) break
        const length = this.pending.readInt32BE(0)
        if (this.pending.length < length) break
        const message = this.pending.subarray(0, length)
        this.pending = this.pending.subarray(length)
        const code = message.readInt32BE(4)
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) this.push(Buffer.from("N"))
        else if (code !== CANCEL_REQUEST) {
          this.started = true
          out.push(message)
        }
      } else {
        if (this.pending.length < 5) break
        const length = this.pending.readInt32BE(1) + 1
        if (this.pending.length < length) break
        out.push(this.pending.subarray(0, length))
        this.pending = this.pending.subarray(length)
      }
    }
    return out
  }

  private async handle(message: Buffer): Promise<void> {
    if (this.started && message[0] === TERMINATE && message.length === 5) {
      await this.rollback()
      this.push(null)
      return
    }
    await this.db.runExclusive(() =>
      this.db.execProtocolRawStream(new Uint8Array(message), {
        onRawData: (data) => {
          this.push(Buffer.from(data))
        }
      })
    )
  }

  private async rollback(): Promise<void> {
    // Outside a transaction this only warns; it is cheaper than tracking the status byte.
    await this.db.exec("ROLLBACK").catch(() => undefined)
  }
}
