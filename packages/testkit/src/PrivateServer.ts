/**
 * Test support: a PostgreSQL server of the test's own, made with `initdb` in a
 * temporary directory and run with `pg_ctl`, so a test can restart a database
 * server for real without touching the server other tests use. Needs the
 * server's programs (Debian's packages put them in
 * /usr/lib/postgresql/<version>/bin); as root it runs them as the `postgres`
 * user, the only way the server agrees to start. Durability is off: a test's
 * data need not survive a crash. A server can have a streaming replica of its
 * own (`standby`: `pg_basebackup -R`, hot standby), which a test can stop and
 * start again.
 */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)

export interface PrivateServer {
  /** A `postgres://` URL of `database` (default `postgres`) on this server. */
  readonly url: (database?: string) => string
  /** A fast restart: every connection is closed, the server is down for a moment, then accepts again. */
  readonly restart: Effect.Effect<void>
  /** A fast stop: every connection is closed and the server stays down (until `start`). */
  readonly stop: Effect.Effect<void>
  /** Starts a stopped server again, on the same port, and waits until it accepts connections. */
  readonly start: Effect.Effect<void>
  /**
   * Freezes the server (SIGSTOP to it and its processes): connections stay open and nothing answers,
   * as when a host vanishes from the network. `thaw` lets it go on.
   */
  readonly freeze: Effect.Effect<void>
  readonly thaw: Effect.Effect<void>
  /** Where it listens on 127.0.0.1. */
  readonly port: number
}

/** The server's processes: the postmaster (postmaster.pid's first line) and its children. */
const processesOf = (data: string): ReadonlyArray<number> => {
  const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0])
  const children = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // The parent's pid is the 4th field of /proc/<pid>/stat, after the command in parentheses.
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster
      } catch {
        return false
      }
    })
    .map(Number)
  return [postmaster, ...children]
}

const signal = (data: string, name: NodeJS.Signals) =>
  Effect.sync(() => {
    for (const pid of processesOf(data)) {
      try {
        process.kill(pid, name)
      } catch (error) {
        // A backend that exited between the listing and the signal (ESRCH) has nothing left to stop.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error
      }
    }
  })

export interface Options {
  /** More server settings (`name=value`), e.g. `shared_preload_libraries=pg_stat_statements`. */
  readonly settings?: ReadonlyArray<string>
}

const ROOT = "/usr/lib/postgresql"

/** The newest installed server's programs, if any. */
const programs = (): string | undefined => {
  if (!existsSync(ROOT)) return undefined
  const versions = readdirSync(ROOT)
    .filter((version) => existsSync(join(ROOT, version, "bin", "pg_ctl")) && existsSync(join(ROOT, version, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(ROOT, versions[0], "bin")
}

/** Whether this machine can run a private server. */
export const available = (): boolean => programs() !== undefined && (userInfo().uid !== 0 || existsSync("/usr/sbin/runuser"))

const freePort = Effect.callback<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/** A temporary directory the server's programs may write to (as root they run as `postgres`). */
const workDir = Effect.gen(function* () {
  const bin = programs()
  if (bin === undefined) return yield* Effect.die(new Error(`no PostgreSQL server programs under ${ROOT}`))
  const dir = mkdtempSync(join(tmpdir(), "productdir-pg-"))
  const asRoot = userInfo().uid === 0
  if (asRoot) {
    const [uid, gid] = yield* Effect.promise(() =>
      Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]).then((ids) => ids.map((id) => Number(id.stdout.trim())))
    )
    chownSync(dir, uid!, gid!)
  }
  const tool = (name: string, args: ReadonlyArray<string>) =>
    Effect.promise(() =>
      asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, name), ...args]) : run(join(bin, name), [...args])
    ).pipe(Effect.asVoid)
  return { dir, data: join(dir, "data"), tool }
})

/**
 * A server on the data directory `make` filled, on a free port of 127.0.0.1: started now, stopped
 * and its directory deleted when the scope closes.
 */
const serve = (options: Options, make: (work: Effect.Success<typeof workDir>) => Effect.Effect<void>) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const work = yield* workDir
      const { dir, data, tool } = work
      const port = yield* freePort
      const settings = [
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
        ...(options.settings ?? []).map((setting) => `-c ${setting}`)
      ].join(" ")
      const pgCtl = (...args: ReadonlyArray<string>) =>
        tool("pg_ctl", ["-D", data, "-o", settings, "-l", join(dir, "server.log"), "-w", ...args])
      yield* make(work)
      yield* pgCtl("start")
      const server: PrivateServer = {
        url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
        restart: pgCtl("-m", "fast", "restart"),
        stop: pgCtl("-m", "fast", "stop"),
        start: pgCtl("start"),
        freeze: signal(data, "SIGSTOP"),
        thaw: signal(data, "SIGCONT"),
        port
      }
      // A frozen server would not stop: it is thawed first.
      return { server, dir, stop: Effect.exit(signal(data, "SIGCONT")).pipe(Effect.andThen(pgCtl("-m", "immediate", "stop"))) }
    }),
    // Stopped whatever its state (a failed stop is a server already down), then deleted.
    ({ dir, stop }) => Effect.exit(stop).pipe(Effect.andThen(Effect.sync(() => rmSync(dir, { recursive: true, force: true }))))
  ).pipe(Effect.map(({ server }) => server))

/** A private server with `options`. */
export const makeWith = (options: Options) =>
  serve(options, ({ data, tool }) => tool("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"]))

/** A private server on a free port of 127.0.0.1, stopped and deleted when the scope closes. */
export const make = makeWith({})

/**
 * A streaming replica of `primary` (a hot standby: it answers reads), made with `pg_basebackup -R`
 * from the primary's replication connection (initdb's trust rules allow it from 127.0.0.1).
 */
export const standby = (primary: PrivateServer, options: Options = {}) =>
  serve(options, ({ data, tool }) =>
    tool("pg_basebackup", ["-D", data, "-R", "-X", "stream", "-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "--no-sync"])
  )
