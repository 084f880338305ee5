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
 *
 * The session's state is the service's, not a client's: what a local client
 * (psql, pg_dump, a CLI on the socket) sets in it (`SET search_path TO ''`, a
 * role, a temporary table that shadows one of ours, a prepared statement it
 * leaves or one of ours it deallocates) lasts only for its own turn. When the
 * session passes from such a client to another connection, it is reset to the
 * server's settings, statements no live connection prepared are dropped, and
 * each connection finds its own prepared statements again at its next turn.
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
  /** A client of the local socket: what it leaves in the session is undone before anyone else's turn. */
  readonly foreign?: boolean | undefined
}

/** Back to the server's settings: every parameter, the role, open cursors, temporary tables. */
const SESSION_RESET = "RESET ALL; SET SESSION AUTHORIZATION DEFAULT; CLOSE ALL; DISCARD TEMP"

export class PgliteSession {
  private holder: Holder | undefined
  private readonly waiting: Array<{ readonly holder: Holder; readonly resume: () => void }> = []
  private nextId = 0
  /** Who had the last turn, and whether it was a foreign client. */
  private last: Holder | undefined
  private lastForeign = false
  /** Counts the resets: a connection whose statements were last checked before the latest one checks them again. */
  private resets = 0
  /** Every prepared statement of a live connection, by name. */
  private readonly owned = new Map<string, SessionConnection>()
  /** Writes are refused (the disk is low: DiskGuard.ts); kept through the resets. */
  private readOnly = false
  /** When the exchange PGlite is working on began (performance.now()), while there is one. */
  private busySince: number | undefined

  constructor(readonly db: PGlite) {}

  /**
   * Milliseconds PGlite has been working on one exchange, when it is; undefined when idle. An exchange that never
   * ends is a database that has stopped, which only a restart brings back (the API's /healthz says so).
   */
  busyFor(now = performance.now()): number | undefined {
    return this.busySince === undefined ? undefined : now - this.busySince
  }

  /** @internal Runs `f`, PGlite's work on one exchange, timed for busyFor. */
  async timed<A>(f: () => Promise<A>): Promise<A> {
    this.busySince = performance.now()
    try {
      return await f()
    } finally {
      this.busySince = undefined
    }
  }

  /**
   * Refuses every write from now on (`on`), or takes them again: `default_transaction_read_only` of the session,
   * which every connection's turn keeps (a client that changes it changes it for its own turn only). Going read-only,
   * a checkpoint first lets the WAL's older segments be reused rather than new ones written.
   */
  setReadOnly(on: boolean): Promise<void> {
    this.readOnly = on
    return this.exclusive(async (db) => {
      if (on) await db.exec("CHECKPOINT").catch(() => undefined)
      await db.exec(`SET default_transaction_read_only = ${on ? "on" : "off"}`)
    })
  }

  /**
   * At the start of a turn of `holder`: the session cleaned of what a foreign client left in it, when one had the
   * turn before; then, for a connection, its own prepared statements made again if a client removed them.
   */
  private async settle(holder: Holder, connection?: SessionConnection, foreign = false): Promise<void> {
    if (this.last !== undefined && this.last !== holder && this.lastForeign) {
      await this.db.exec(this.readOnly ? `${SESSION_RESET}; SET default_transaction_read_only = on` : SESSION_RESET).catch(() => undefined)
      for (const name of await this.preparedNames()) {
        if (!this.owned.has(name)) await this.db.exec(`DEALLOCATE ${quoteIdentifier(name)}`).catch(() => undefined)
      }
      this.resets++
    }
    this.last = holder
    this.lastForeign = foreign
    if (connection !== undefined && connection.checkedAt < this.resets) {
      connection.checkedAt = this.resets
      const present = new Set(await this.preparedNames())
      for (const [name, parse] of connection.parses) {
        if (!present.has(name)) await this.db.runExclusive(() => this.db.execProtocolRaw(concat(parse, SYNC))).catch(() => undefined)
      }
    }
  }

  private async preparedNames(): Promise<ReadonlyArray<string>> {
    const result = await this.db.query<{ name: string }>("SELECT name FROM pg_prepared_statements").catch(() => undefined)
    return result?.rows.map((row) => row.name) ?? []
  }

  /** @internal A connection prepared (`parse` given) or closed a named statement. */
  noteStatement(name: string, connection: SessionConnection, parse: Uint8Array | undefined): void {
    if (parse !== undefined) {
      this.owned.set(name, connection)
      connection.parses.set(name, parse)
    } else {
      if (this.owned.get(name) === connection) this.owned.delete(name)
      connection.parses.delete(name)
    }
  }

  /** @internal The turn of `holder` begins. */
  begin(holder: Holder, connection: SessionConnection, foreign: boolean): Promise<void> {
    return this.settle(holder, connection, foreign)
  }

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
      await this.settle(holder)
      return await this.timed(() => f(this.db))
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
  /** Its prepared statements by name, with the Parse message that made each (to make it again: PgliteSession.settle). */
  readonly parses = new Map<string, Uint8Array>()
  /** How many session resets its statements were last checked after. */
  checkedAt = 0
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
    await this.session.begin(this.holder, this, this.options.foreign === true)
    // The last bytes of the backend's answer: a ReadyForQuery, when there is one, is the last message.
    let tail: Uint8Array = new Uint8Array(0)
    await this.session.timed(() =>
      this.session.db.runExclusive(() =>
        this.session.db.execProtocolRawStream(message, {
          onRawData: (data) => {
            tail = data.length >= 6 ? data.subarray(data.length - 6) : concatTail(tail, data)
            onData(data)
          }
        })
      )
    )
    if (type === PARSE) {
      const name = parsedStatementName(message)
      // A copy: the message's bytes are a view of a buffer its reader reuses.
      if (name !== "") this.session.noteStatement(name, this, message.slice())
    } else if (type === CLOSE) {
      const name = closedStatementName(message)
      if (name !== undefined) this.session.noteStatement(name, this, undefined)
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
    if (!held && this.parses.size === 0) return
    await this.gate.enter(this.holder)
    try {
      const db = this.session.db
      if (held) {
        // A Sync ends any extended-protocol exchange in progress; then no transaction may survive us.
        await db.runExclusive(() => db.execProtocolRaw(SYNC)).catch(() => undefined)
        await db.exec("ROLLBACK").catch(() => undefined)
      }
      for (const name of [...this.parses.keys()]) {
        await db.exec(`DEALLOCATE ${quoteIdentifier(name)}`).catch(() => undefined)
        this.session.noteStatement(name, this, undefined)
      }
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

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const joined = new Uint8Array(a.length + b.length)
  joined.set(a)
  joined.set(b, a.length)
  return joined
}

const concatTail = (tail: Uint8Array, data: Uint8Array): Uint8Array => {
  const joined = new Uint8Array(tail.length + data.length)
  joined.set(tail)
  joined.set(data, tail.length)
  return joined.subarray(Math.max(0, joined.length - 6))
}
