/**
 * A Postgres wire-protocol stream into PGlite in this process, so the same
 * `@effect/sql-pg` code runs on the embedded store with no socket. It is one
 * connection of the shared session (PgliteSession.ts): its exchanges never
 * interleave with those of the CLIs on the local socket.
 */
import { Duplex } from "node:stream"
import { FrontendFramer } from "./FrontendMessages.ts"
import type { PgliteSession, SessionConnection } from "./PgliteSession.ts"

export class PgliteDuplex extends Duplex {
  private readonly framer = new FrontendFramer()
  private readonly connection: SessionConnection
  private work: Promise<void> = Promise.resolve()

  constructor(session: PgliteSession) {
    super()
    this.connection = session.connect()
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    for (const message of this.framer.push(chunk)) {
      this.work = this.work.then(async () => {
        switch (message._tag) {
          case "EncryptionRequest":
            this.push(Buffer.from("N"))
            return
          case "CancelRequest":
            return
          case "Terminate":
            await this.connection.close()
            this.push(null)
            return
          case "Message":
            return this.connection.send(message.bytes, message.type, (data) => void this.push(Buffer.from(data)))
        }
      })
    }
    this.work.then(() => callback(), callback)
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A connection that dies mid-transaction must not leave the shared session inside it.
    this.work
      .then(() => this.connection.close())
      .then(
        () => callback(error),
        () => callback(error)
      )
  }
}
