/**
 * PGlite is one backend session. Several clients (this process's own pool, and
 * the CLIs on the local socket) may use it only if their exchanges never
 * interleave: a Parse from one client between another's Bind and Execute runs
 * the wrong statement, and a query that runs inside someone else's open
 * transaction is rolled back with it.
 *
 * The gate here hands the session to one connection from its first message
 * until the backend says it is idle outside a transaction (ReadyForQuery with
 * status 'I'); then the next waiting connection gets it. A connection that
 * leaves mid-transaction is rolled back, and its prepared statements are
 * closed, so the session is clean for the next one. A socket client that holds
 * the session while it sends nothing is cut off after a timeout: one stalled
 * client must not stop everyone.
 */
import type { PGlite } from "@electric-sql/pglite"
import { CLOSE, closedStatementName, PARSE, parsedStatementName } from "./FrontendMessages.ts"

const READY_FOR_QUERY = 0x5a
const IDLE = 0x49 // 'I'

interface Holder {
  readonly id: number
}

export interface SessionConnectionOptions {
  /** Cut the connection off when it holds the session this long without sending anything. */
  readonly idleTimeoutMs?: number | undefined
  readonly onIdleTimeout?: (() => void) | undefined
}

export class PgliteSession {
  private holder: Holder | undefined
  private readonly waiting: Array<{ readonly holder: Holder; readonly resume: () => void }> = []
  private nextId = 0

  constructor(readonly db: PGlite) {}

  /** Waits until `holder` has the session. */
  private enter(holder: Holder): Promise<void> {
    if (this.holder === undefined || this.holder === holder) {
      this.holder = holder
      return Promise.resolve()
    }
    return new Promise((resume) => this.waiting.push({ holder, resume }))
  }

  private leave(holder: Holder): void {
    if (this.holder !== holder) return
    const next = this.waiting.shift()
    this.holder = next?.holder
    next?.resume()
  }

  private forget(holder: Holder): void {
    const at = this.waiting.findIndex((w) => w.holder === holder)
    if (at !== -1) this.waiting.splice(at, 1)
  }

  /** Runs `f` with the session to itself, between other connections' exchanges. */
  async exclusive<A>(f: (db: PGlite) => Promise<A>): Promise<A> {
    const holder = { id: ++this.nextId }
    await this.enter(holder)
    try {
      return await f(this.db)
    } finally {
      this.leave(holder)
    }
  }

  connect(options: SessionConnectionOptions = {}): SessionConnection {
    return new SessionConnection(this, { id: ++this.nextId }, options, {
      enter: (h) => this.enter(h),
      leave: (h) => this.leave(h),
      forget: (h) => this.forget(h),
      holds: (h) => this.holder === h
    })
  }
}

interface Gate {
  readonly enter: (holder: Holder) => Promise<void>
  readonly leave: (holder: Holder) => void
  readonly forget: (holder: Holder) => void
  readonly holds: (holder: Holder) => boolean
}

/** One client's view of the session. Messages must be sent one at a time (each `send` awaited). */
export class SessionConnection {
  private readonly statements = new Set<string>()
  private idleTimer: ReturnType<typeof setTimeout> | undefined
  private closed = false

  constructor(
    private readonly session: PgliteSession,
    private readonly holder: Holder,
    private readonly options: SessionConnectionOptions,
    private readonly gate: Gate
  ) {}

  /** Runs one frontend message; the backend's bytes go to `onData` as they come. */
  async send(message: Uint8Array, type: number | undefined, onData: (bytes: Uint8Array) => void): Promise<void> {
    if (this.closed) return
    await this.gate.enter(this.holder)
    this.clearIdleTimer()
    if (this.closed) return this.gate.leave(this.holder)
    // The last bytes of the backend's answer: a ReadyForQuery, when there is one, is the last message.
    let tail: Uint8Array = new Uint8Array(0)
    await this.session.db.runExclusive(() =>
      this.session.db.execProtocolRawStream(message, {
        onRawData: (data) => {
          tail = data.length >= 6 ? data.subarray(data.length - 6) : concatTail(tail, data)
          onData(data)
        }
      })
    )
    if (type === PARSE) {
      const name = parsedStatementName(message)
      if (name !== "") this.statements.add(name)
    } else if (type === CLOSE) {
      const name = closedStatementName(message)
      if (name !== undefined) this.statements.delete(name)
    }
    const ready = tail.length === 6 && tail[0] === READY_FOR_QUERY && tail[4] === 5
    if (ready && tail[5] === IDLE) this.gate.leave(this.holder)
    else this.armIdleTimer()
  }

  /**
   * Leaves the session clean: a half-sent exchange is ended, an open transaction
   * rolled back, prepared statements closed. Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.clearIdleTimer()
    this.gate.forget(this.holder)
    const held = this.gate.holds(this.holder)
    if (!held && this.statements.size === 0) return
    await this.gate.enter(this.holder)
    try {
      const db = this.session.db
      if (held) {
        // A Sync ends any extended-protocol exchange in progress; then no transaction may survive us.
        await db.runExclusive(() => db.execProtocolRaw(SYNC)).catch(() => undefined)
        await db.exec("ROLLBACK").catch(() => undefined)
      }
      for (const name of this.statements) {
        await db.exec(`DEALLOCATE "${name.replaceAll('"', '""')}"`).catch(() => undefined)
      }
      this.statements.clear()
    } finally {
      this.gate.leave(this.holder)
    }
  }

  private armIdleTimer(): void {
    const ms = this.options.idleTimeoutMs
    if (ms === undefined || this.options.onIdleTimeout === undefined) return
    this.idleTimer = setTimeout(this.options.onIdleTimeout, ms)
    this.idleTimer.unref()
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
    this.idleTimer = undefined
  }
}

const SYNC = new Uint8Array([0x53, 0, 0, 0, 4])

const concatTail = (tail: Uint8Array, data: Uint8Array): Uint8Array => {
  const joined = new Uint8Array(tail.length + data.length)
  joined.set(tail)
  joined.set(data, tail.length)
  return joined.subarray(Math.max(0, joined.length - 6))
}
