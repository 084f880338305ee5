/**
 * Start and stop the way process managers do it, and slow or broken clients:
 * real processes, real sockets.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { get as httpGet } from "node:http"
import { type AddressInfo, connect, createServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Agent, request as undiciRequest } from "undici"
import { sampleRecords } from "@productdir/fixtures/sample"
import { API_MAIN, json, run, signalGroup, start, startApi, type Started } from "./processes.ts"

const product = sampleRecords()[0]!

/** Raw HTTP/1.1 on one socket: what was written back, until the server closes it or `ms` pass. */
const rawExchange = (port: number, text: string, ms = 5_000, from?: string) =>
  new Promise<{ readonly reply: string; readonly closed: boolean }>((resolveExchange) => {
    const socket = connect({ port, host: "127.0.0.1", ...(from === undefined ? {} : { localAddress: from }) })
    let reply = ""
    const timer = setTimeout(() => {
      socket.destroy()
      resolveExchange({ reply, closed: false })
    }, ms)
    socket.setEncoding("utf8").on("data", (d: string) => (reply += d))
    socket.on("close", () => {
      clearTimeout(timer)
      resolveExchange({ reply, closed: true })
    })
    socket.on("error", () => undefined)
    socket.write(text)
  })

const portOf = (base: string) => Number(new URL(base).port)

/**
 * `attempt` again until `done` holds of what it gives, for up to `ms`: what it last gave either way. A test waits for
 * what it can see happen, not for a time a slower machine may need more of.
 */
const until = async <A>(attempt: () => Promise<A>, done: (a: A) => boolean, ms = 15_000): Promise<A> => {
  const deadline = Date.now() + ms
  for (;;) {
    const result = await attempt()
    if (done(result) || Date.now() > deadline) return result
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** An attacker's `count` connections, opened from `from(i)` and never written to; how many are still open. */
const holdIdle = async (port: number, count: number, from: (i: number) => string) => {
  const held: Array<Socket> = []
  await Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise<void>((r) => {
          const s = connect({ port, host: "127.0.0.1", localAddress: from(i) }, () => r())
          s.on("error", () => r())
          s.on("close", () => r())
          held.push(s)
        })
    )
  )
  const open = () => held.filter((s) => !s.destroyed && s.readyState === "open").length
  /**
   * The attacker keeps no more than `share`. The server has taken every one of its connections by now (they
   * came first), but this side hears of the ones it cut only as the closes arrive, later on a busy machine.
   */
  const keepsAtMost = async (share: number) => {
    const deadline = Date.now() + 20_000
    while (open() > share && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(open()).toBeLessThanOrEqual(share)
  }
  const close = () => {
    for (const s of held) s.destroy()
  }
  return { keepsAtMost, close }
}

describe("start and stop", { timeout: 180_000 }, () => {
  const cleanup: Array<() => void> = []
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "productdir-life-"))
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    return dir
  }
  const api = (env: Record<string, string>): Started => {
    const started = startApi({ DATA_DIR: dataDir(), ...env })
    cleanup.unshift(() => signalGroup(started.child, "SIGKILL"))
    return started
  }
  afterEach(() => {
    for (const f of cleanup.splice(0)) f()
  })

  it("SIGTERM to `npm start` itself stops the server: no orphan keeps answering", async () => {
    const server = start("npm", ["start", "--silent"], { DATA_DIR: dataDir() })
    cleanup.unshift(() => signalGroup(server.child, "SIGKILL"))
    const base = await server.url
    expect((await json(`${base}/healthz`)).status).toBe(200)
    // Only npm's own pid, as a process manager that tracks the command it started would do.
    process.kill(server.child.pid!, "SIGTERM")
    await server.exited
    let answering = true
    for (let i = 0; i < 50 && answering; i++) {
      answering = await fetch(`${base}/healthz`).then(
        () => true,
        () => false
      )
      if (answering) await new Promise((r) => setTimeout(r, 100))
    }
    expect(answering).toBe(false)
  })

  it("SIGTERM under keep-alive load drains: in-flight requests finish with Connection: close, then the process exits 0 at once", async () => {
    const server = api({ SHUTDOWN_GRACE: "30" })
    const base = await server.url
    const agent = new Agent({ connections: 32, pipelining: 1, keepAliveTimeout: 30_000 })
    const outcomes = { ok: 0, refused503: 0, other: [] as Array<string>, errors: 0 }
    let stop = false
    const worker = async () => {
      while (!stop) {
        try {
          const reply = await undiciRequest(`${base}/products/${product.id}`, { dispatcher: agent })
          const body = await reply.body.text()
          if (reply.statusCode === 200) outcomes.ok++
          else if (
            reply.statusCode === 503 &&
            String(reply.headers["content-type"]).startsWith("application/problem+json") &&
            body.includes("shutting down")
          )
            outcomes.refused503++
          else outcomes.other.push(`${reply.statusCode} ${body.slice(0, 80)}`)
        } catch {
          // The listener is gone: new connections are refused. That is the end of this worker.
          outcomes.errors++
          return
        }
      }
    }
    const workers = Array.from({ length: 32 }, worker)
    await new Promise((r) => setTimeout(r, 1_500))
    server.child.kill("SIGTERM")
    const code = await server.exited
    stop = true
    await Promise.all(workers)
    await agent.close()
    expect(code).toBe(0)
    // The drain ended because nothing was left in flight, not because the 30 s grace ran out.
    expect(server.output()).not.toContain("ran out")
    expect(outcomes.ok).toBeGreaterThan(100)
    expect(outcomes.other).toEqual([])
    expect(server.output()).toContain("shutting down: draining connections")
  })

  it("SIGTERM with 64 keep-alive connections open: every request written to one afterwards is answered, then the process exits 0", async () => {
    const server = api({ SHUTDOWN_GRACE: "30", HTTP_KEEP_ALIVE_TIMEOUT: "5" })
    const port = portOf(await server.url)
    const get = `GET /products/${product.id} HTTP/1.1\r\nHost: x\r\n\r\n`
    // 64 clients, each with a connection kept alive after its first answer.
    const clients = await Promise.all(
      Array.from(
        { length: 64 },
        () =>
          new Promise<{ socket: Socket; replies: () => string; closed: Promise<void> }>((resolveClient, reject) => {
            const socket = connect(port, "127.0.0.1")
            let text = ""
            socket.setEncoding("utf8").on("data", (d: string) => {
              text += d
              if (text.includes("\r\n\r\n") && text.endsWith("}")) resolveClient(client)
            })
            socket.on("error", () => undefined)
            const closed = new Promise<void>((r) => socket.on("close", () => r()))
            const client = { socket, replies: () => text, closed }
            socket.once("connect", () => socket.write(get))
            setTimeout(() => reject(new Error("no first answer")), 20_000)
          })
      )
    )
    for (const c of clients) expect(c.replies()).toMatch(/^HTTP\/1\.1 200 /)
    const firstLengths = clients.map((c) => c.replies().length)
    server.child.kill("SIGTERM")
    // After the signal (long enough for a server that closes at once to have gone), each client sends its next request.
    await new Promise((r) => setTimeout(r, 300))
    for (const c of clients) c.socket.write(get)
    await Promise.all(clients.map((c) => c.closed))
    for (const [i, c] of clients.entries()) {
      const second = c.replies().slice(firstLengths[i])
      expect(second, `client ${i}`).toMatch(/^HTTP\/1\.1 (200|503) /)
      expect(second.toLowerCase(), `client ${i}`).toContain("connection: close")
    }
    expect(await server.exited).toBe(0)
    expect(server.output()).toContain("shutting down: draining connections")
  })

  it("a connection still open when SHUTDOWN_GRACE runs out is cut, and the log says so; the process exits 0", async () => {
    // An idle keep-alive connection would stay until its 60 s timeout; the grace is one second.
    const server = api({ SHUTDOWN_GRACE: "1", HTTP_KEEP_ALIVE_TIMEOUT: "60" })
    const port = portOf(await server.url)
    const socket = connect(port, "127.0.0.1")
    socket.on("error", () => undefined)
    const closed = new Promise<void>((r) => socket.on("close", () => r()))
    const answered = new Promise<string>((r) => {
      let text = ""
      socket.setEncoding("utf8").on("data", (d: string) => {
        text += d
        if (text.includes("\r\n\r\n") && text.endsWith("}")) r(text)
      })
    })
    socket.write(`GET /products/${product.id} HTTP/1.1\r\nHost: x\r\n\r\n`)
    expect(await answered).toMatch(/^HTTP\/1\.1 200 /)
    server.child.kill("SIGTERM")
    await closed
    expect(await server.exited).toBe(0)
    const warning = server
      .output()
      .split("\n")
      .find((l) => l.includes("ran out"))
    expect(warning).toContain("the grace of 1s ran out; cutting 1 open connection(s)")
  })

  it("one address holding 1,100 idle connections cannot lock out other clients", async () => {
    const server = api({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: "64" })
    const port = portOf(await server.url)
    // The attacker, from 127.0.0.2.
    const attacker = await holdIdle(port, 1_100, () => "127.0.0.2")
    try {
      // Everyone else, from 127.0.0.1: served at once.
      const others = await Promise.all(
        Array.from({ length: 20 }, () => rawExchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
      )
      for (const exchange of others) expect(exchange.reply).toMatch(/^HTTP\/1\.1 200 /)
      await attacker.keepsAtMost(64)
    } finally {
      attacker.close()
    }
  })

  it("400 connections from one address: every request is answered, 200 within its cap and 503 with Retry-After past it, none reset", async () => {
    const server = api({})
    const port = portOf(await server.url)
    const sockets = await Promise.all(
      Array.from(
        { length: 400 },
        () =>
          new Promise<{ socket: Socket; reply: () => string; error: () => string | undefined; ended: Promise<void> }>((ready) => {
            const socket = connect({ port, host: "127.0.0.1", localAddress: "127.0.0.3" })
            let reply = ""
            let error: string | undefined
            const ended = new Promise<void>((done) => socket.on("close", () => done()))
            socket.setEncoding("utf8").on("data", (d: string) => (reply += d))
            socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message))
            socket.once("connect", () => ready({ socket, reply: () => reply, error: () => error, ended }))
            socket.once("error", () => ready({ socket, reply: () => reply, error: () => error, ended }))
          })
      )
    )
    // Every connection open at once, then a request on each (keep-alive: the ones within the cap stay open).
    for (const { socket } of sockets) socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    const deadline = Date.now() + 60_000
    while (sockets.some((s) => !/\r\n\r\n\{/.test(s.reply()) && s.error() === undefined) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50))
    }
    const statuses = sockets.map((s) => s.error() ?? /^HTTP\/1\.1 (\d{3}) /.exec(s.reply())?.[1] ?? "no answer")
    const counts: Record<string, number> = {}
    for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1
    expect(Object.keys(counts).sort(), JSON.stringify(counts)).toEqual(["200", "503"])
    expect(counts["200"]).toBe(128)
    for (const s of sockets.filter((s) => s.reply().startsWith("HTTP/1.1 503"))) {
      expect(s.reply()).toMatch(/\r\nretry-after: 1\r\n/i)
      expect(s.reply()).toContain("reuse the ones you have")
    }
    for (const { socket } of sockets) socket.destroy()
  })

  it("the many addresses of one network cannot lock out other clients either: its wider networks are capped too", async () => {
    const server = api({ HTTP_MAX_CONNECTIONS: "200", HTTP_MAX_CONNECTIONS_PER_ADDRESS: "32" })
    const port = portOf(await server.url)
    // The attacker: ten addresses of one /24, 40 idle connections each (400, twice the server's 200).
    const attacker = await holdIdle(port, 400, (i) => `127.0.0.${2 + (i % 10)}`)
    try {
      // Everyone else, from another /24: served at once.
      const others = await Promise.all(
        Array.from({ length: 20 }, () =>
          rawExchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5_000, "127.0.1.1")
        )
      )
      for (const exchange of others) expect(exchange.reply).toMatch(/^HTTP\/1\.1 200 /)
      // The attacker's /24 keeps no more than twice one address's share.
      await attacker.keepsAtMost(64)
    } finally {
      attacker.close()
    }
  })

  it("a request in flight at SIGTERM completes (with Connection: close) while new connections are refused", async () => {
    const server = api({ SHUTDOWN_GRACE: "30" })
    const port = portOf(await server.url)
    // A vote whose body is only half sent: in flight until the rest arrives.
    const body = JSON.stringify({ entity_id: product.id })
    const socket: Socket = connect(port, "127.0.0.1")
    let reply = ""
    socket.setEncoding("utf8").on("data", (d: string) => (reply += d))
    const closed = new Promise<void>((r) => socket.on("close", () => r()))
    await new Promise<void>((r) => socket.on("connect", () => r()))
    socket.write(
      `POST /vote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`
    )
    await new Promise((r) => setTimeout(r, 300))
    server.child.kill("SIGTERM")
    // Not listening any more once it has the signal: a new connection is refused.
    const fresh = await until(
      () =>
        fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status,
          () => "refused"
        ),
      (outcome) => outcome === "refused"
    )
    expect(fresh).toBe("refused")
    expect(server.child.exitCode).toBe(null)
    socket.write(body.slice(10))
    await closed
    expect(reply).toMatch(/^HTTP\/1\.1 201 /)
    expect(reply.toLowerCase()).toContain("connection: close")
    expect(await server.exited).toBe(0)
  })

  it("slow clients are cut off: headers that never finish get a 408 problem, and so does a body that never arrives", async () => {
    const server = api({ HTTP_HEADERS_TIMEOUT: "2", HTTP_REQUEST_TIMEOUT: "3" })
    const port = portOf(await server.url)
    const [headers, bodyless] = await Promise.all([
      rawExchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ", 15_000),
      rawExchange(
        port,
        `POST /vote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"entity_id":`,
        15_000
      )
    ])
    for (const exchange of [headers, bodyless]) {
      expect(exchange.closed).toBe(true)
      expect(exchange.reply).toMatch(/^HTTP\/1\.1 408 /)
      expect(exchange.reply).toContain("application/problem+json")
    }
  })

  it("requests Node refuses itself are problem+json too: malformed (400), oversized headers (431), an oversized URI (414)", async () => {
    const server = api({})
    const port = portOf(await server.url)
    const malformed = await rawExchange(port, "NOT HTTP AT ALL\r\n\r\n")
    expect(malformed.reply).toMatch(/^HTTP\/1\.1 400 /)
    expect(malformed.reply).toContain("application/problem+json")
    expect(JSON.parse(malformed.reply.split("\r\n\r\n")[1]!)).toMatchObject({ status: 400, title: "Bad Request" })
    const huge = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`)
    expect(huge.reply).toMatch(/^HTTP\/1\.1 431 /)
    expect(huge.reply).toContain("application/problem+json")
    // A URI past the 16 KiB a head may take is a URI too long, not headers too large.
    const longUri = await rawExchange(port, `GET /entities/${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)
    expect(longUri.reply).toMatch(/^HTTP\/1\.1 414 /)
    expect(longUri.reply).toContain("application/problem+json")
    expect(JSON.parse(longUri.reply.split("\r\n\r\n")[1]!)).toMatchObject({ status: 414, title: "URI Too Long" })
  })

  it("connections over HTTP_MAX_CONNECTIONS are refused; the ones within it are served", async () => {
    const server = api({ HTTP_MAX_CONNECTIONS: "3" })
    const port = portOf(await server.url)
    const held = await Promise.all(
      Array.from(
        { length: 3 },
        () =>
          new Promise<Socket>((r) => {
            const s = connect(port, "127.0.0.1", () => r(s))
            s.on("error", () => undefined)
          })
      )
    )
    // Each is served a request: the server has taken all three before the fourth comes.
    for (const s of held) {
      const reply = new Promise<string>((r) => s.once("data", (d) => r(String(d))))
      s.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
      expect(await reply).toMatch(/^HTTP\/1\.1 200 /)
    }
    const extra = await rawExchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 3_000)
    expect(extra.closed).toBe(true)
    expect(extra.reply).toBe("")
    // One of the three leaves: once the server has seen it go, a new connection is served.
    held[0]!.destroy()
    const served = await until(
      () => rawExchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 3_000),
      (exchange) => exchange.reply !== ""
    )
    expect(served.reply).toMatch(/^HTTP\/1\.1 200 /)
    for (const s of held) s.destroy()
  })

  it("what an operator gets wrong at start is one line that says what to change, never a stack trace", async () => {
    const oneLine = (result: { stderr: string }) => {
      const lines = result.stderr.trim().split("\n")
      expect(lines, result.stderr).toHaveLength(1)
      expect(result.stderr).not.toMatch(/\n\s+at /)
      return lines[0]!
    }
    // A port another process listens on, for the API and for its metrics.
    const taken = createServer()
    await new Promise<void>((listening) => taken.listen(0, "127.0.0.1", listening))
    const port = String((taken.address() as AddressInfo).port)
    try {
      const api = await run(API_MAIN, [], { STORE: "memory", PORT: port })
      expect(api.code).toBe(1)
      expect(oneLine(api)).toBe(
        `productdir API: cannot listen on 127.0.0.1:${port}: another process listens there. Stop it, or set PORT to a free port.`
      )
      // Said before the store is opened: an embedded one is not made (and seeded) for nothing.
      const unmade = join(mkdtempSync(join(tmpdir(), "productdir-port-taken-")), "data")
      const embedded = await run(API_MAIN, [], { PORT: port, DATA_DIR: unmade })
      expect(oneLine(embedded)).toContain("another process listens there")
      expect(existsSync(unmade)).toBe(false)
      rmSync(dirname(unmade), { recursive: true, force: true })
      const metrics = await run(API_MAIN, [], { STORE: "memory", PORT: "0", METRICS_PORT: port })
      expect(metrics.code).toBe(1)
      expect(oneLine(metrics)).toContain(`cannot listen on 127.0.0.1:${port}: another process listens there. Stop it, or set METRICS_PORT`)
    } finally {
      taken.close()
    }
    const host = await run(API_MAIN, [], { STORE: "memory", PORT: "0", HOST: "host.invalid" })
    expect(host.code).toBe(1)
    expect(oneLine(host)).toContain('cannot listen: HOST "host.invalid" names no address')
    const key = await run(API_MAIN, [], { STORE: "memory", PORT: "0", A2A_SIGNING_KEY: "garbage" })
    expect(key.code).toBe(1)
    expect(oneLine(key)).toContain("bad configuration: A2A_SIGNING_KEY must be a private JWK")
    const setting = await run(API_MAIN, [], { STORE: "memory", PORT: "not-a-port" })
    expect(oneLine(setting)).toBe("productdir API: bad configuration: PORT: Expected an integer.")
    // No arguments: --help and --version answer, anything else is refused, and no server starts.
    const help = await run(API_MAIN, ["--help"], { STORE: "memory", PORT: "0" })
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("It takes no arguments: every setting is an environment variable")
    expect(help.stdout).not.toContain("listening")
    const version = await run(API_MAIN, ["--version"], { STORE: "memory", PORT: "0" })
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
    const bogus = await run(API_MAIN, ["--port", "4000"], { STORE: "memory", PORT: "0" })
    expect(bogus.code).toBe(2)
    expect(oneLine(bogus)).toContain('takes no arguments, got "--port" "4000"')
    expect(bogus.stdout).not.toContain("listening")
  })

  if (process.env.DATABASE_URL !== undefined) {
    it("a database that answers but no longer holds the catalog is not ready", async () => {
      const admin = new URL(process.env.DATABASE_URL!)
      admin.pathname = "/postgres"
      const name = `productdir_readyz_${randomUUID().slice(0, 8)}`
      const psql = (url: string, statement: string) => execFileSync("psql", [url, "-qAtc", statement])
      psql(admin.href, `CREATE DATABASE ${name}`)
      const url = new URL(admin)
      url.pathname = `/${name}`
      const api = startApi({ DATABASE_URL: url.href, CACHE_BYTES: "0" })
      try {
        const base = await api.url
        expect((await json(`${base}/readyz`)).status).toBe(200)
        // Dropped and made again empty, restored to the wrong database: it answers, and serves nothing.
        psql(url.href, "DROP TABLE products CASCADE")
        const ready = await json<{ detail: string }>(`${base}/readyz`)
        expect(ready.status).toBe(503)
        expect(ready.headers.get("retry-after")).toBeTruthy()
      } finally {
        signalGroup(api.child, "SIGKILL")
        await api.exited
        psql(admin.href, `DROP DATABASE ${name} WITH (FORCE)`)
      }
    })
  }

  it("a server reached from elsewhere (HOST=0.0.0.0) signs no card for a loopback Host, which names the client's own machine", async () => {
    const api = startApi({ STORE: "memory", HOST: "0.0.0.0" })
    try {
      const port = new URL(await api.url).port
      const cardFor = (host: string) =>
        new Promise<{ signatures?: unknown; supportedInterfaces?: Array<{ url: string }> }>((resolve, reject) =>
          httpGet(`http://127.0.0.1:${port}/.well-known/agent-card.json`, { headers: { host, "a2a-version": "1.0" } }, (response) => {
            let text = ""
            response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
            response.on("end", () => resolve(JSON.parse(text)))
          }).on("error", reject)
        )
      const spoofed = await cardFor("localhost:8080")
      expect(spoofed.signatures).toBeUndefined()
      expect(JSON.stringify(spoofed)).toContain("http://localhost:8080/a2a/jsonrpc")
    } finally {
      signalGroup(api.child, "SIGKILL")
      await api.exited
    }
  })

  it("PostgreSQL unreachable at start: one line per attempt, then exit 1 with one clear line", async () => {
    const result = await run(API_MAIN, [], {
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/nowhere",
      STORE_CONNECT_TIMEOUT: "2",
      PORT: "0"
    })
    expect(result.code).toBe(1)
    const attempts = result.stdout.split("\n").filter((l) => l.includes("is not reachable"))
    expect(attempts.length).toBeGreaterThanOrEqual(2)
    expect(attempts[0]).toContain("127.0.0.1:1/nowhere")
    const stderr = result.stderr.trim().split("\n")
    expect(stderr).toHaveLength(1)
    expect(stderr[0]).toMatch(
      /^productdir API: cannot use the store: PostgreSQL at 127\.0\.0\.1:1\/nowhere is not reachable .*gave up after \d+ s \(STORE_CONNECT_TIMEOUT\)/
    )
    // What the network said, not only the driver's "Failed to connect".
    expect(stderr[0]).toContain("ECONNREFUSED")
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/)
    // A server that answers but refuses says why, at once: here a database it does not have.
    if (process.env.DATABASE_URL !== undefined) {
      const missing = new URL(process.env.DATABASE_URL)
      missing.pathname = "/productdir_no_such_database"
      const refused = await run(API_MAIN, [], { DATABASE_URL: missing.href, STORE_CONNECT_TIMEOUT: "30", PORT: "0" })
      expect(refused.code).toBe(1)
      expect(refused.stderr.trim()).toContain(`refused us: database "productdir_no_such_database" does not exist. Check DATABASE_URL`)
    }
  })
})
