/**
 * A new user's first hour, as they meet it: the commands run with the Node their PATH has,
 * the service index and llms.txt say how to call everything, and the docs page and its icon
 * load from this server alone, quickly. Over a real socket.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { get } from "node:http"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { brotliDecompressSync } from "node:zlib"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { bodyOf, postJson, request } from "./http.ts"
import { ROOT } from "./processes.ts"

/** The oldest Node the root package.json's engines allow, e.g. "22.19". */
const minimumNode = /^>=\s*(\d+\.\d+)/.exec(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).engines.node)?.[1]

/** The user's PATH without the node_modules/.bin directories npm run and npx put first (where Node 24 is). */
const userPath = (process.env.PATH ?? "")
  .split(delimiter)
  .filter((dir) => dir.length > 0 && !dir.split(/[\\/]/).includes("node_modules"))
  .join(delimiter)

interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const runWithUserPath = (file: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.promise(
    () =>
      new Promise<Ran>((resolve) =>
        execFile(
          file,
          args,
          { cwd: ROOT, env: { HOME: process.env.HOME ?? "/tmp", PATH: userPath, ...env }, encoding: "utf8", timeout: 120_000 },
          (error, stdout, stderr) =>
            resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
        )
      )
  )

/** A body as sent, not decoded. */
const onTheWire = (url: string, headers: Record<string, string>) =>
  Effect.promise(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        get(url, { headers }, (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () => resolve(Buffer.concat(chunks)))
        }).on("error", reject)
      )
  )

const BINS = [
  // The CLIs answer --help; the API has no arguments, so a bad PORT makes it answer at once.
  { bin: "apps/import/bin/productdir-import.js", args: ["--help"], env: {}, works: /DESCRIPTION/ },
  { bin: "apps/reconcile/bin/productdir-reconcile.js", args: ["--help"], env: {}, works: /DESCRIPTION/ },
  { bin: "apps/agents/bin/productdir-agents.js", args: ["--help"], env: {}, works: /DESCRIPTION/ },
  { bin: "apps/api/bin/productdir-api.js", args: [], env: { PORT: "not-a-port" }, works: /bad configuration.*PORT/s }
]

describe("a new user's first hour", { timeout: 180_000 }, () => {
  it.effect("every bin, run directly with the PATH's Node, works or says in one line which Node it needs", () =>
    Effect.gen(function* () {
      expect(minimumNode).toMatch(/^\d+\.\d+$/)
      const version = (yield* runWithUserPath("/usr/bin/env", ["node", "--version"])).stdout.trim()
      const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
      const [needMajor = 0, needMinor = 0] = (minimumNode ?? "").split(".").map(Number)
      const oldNode = major < needMajor || (major === needMajor && minor < needMinor)
      for (const { bin, args, env, works } of BINS) {
        const ran = yield* runWithUserPath(join(ROOT, bin), args, env)
        const output = `${ran.stdout}${ran.stderr}`
        expect(output, bin).not.toMatch(/SyntaxError|ERR_UNKNOWN_BUILTIN_MODULE|does not provide an export/)
        if (oldNode) {
          expect(ran.code, bin).not.toBe(0)
          expect(ran.stdout, bin).toBe("")
          expect(ran.stderr.trimEnd().split("\n"), bin).toHaveLength(1)
          expect(ran.stderr, bin).toContain(`needs Node.js ${minimumNode} or later, not ${version}`)
        } else {
          expect(output, bin).toMatch(works)
        }
      }
    })
  )

  it.effect("npm start's launcher runs the API without V8's allocation-site pretenuring, on the heap it documents", () =>
    Effect.gen(function* () {
      // A preload that says how Node was started and stops before the API does anything. Pretenuring put every
      // request's HTTP objects in the old generation after the cache's fill: the cached reads' p99 (docs/operations.md).
      const dir = mkdtempSync(join(tmpdir(), "productdir-launcher-"))
      const preload = join(dir, "argv.cjs")
      writeFileSync(preload, "process.stdout.write(JSON.stringify(process.execArgv)); process.exit(0)\n")
      // With the Node npm install brought (as `npm start` runs it), first on the PATH.
      const ran = yield* runWithUserPath(join(ROOT, "apps/api/bin/productdir-api.js"), [], {
        NODE_OPTIONS: `--require ${preload}`,
        PATH: `${join(ROOT, "node_modules", ".bin")}${delimiter}${userPath}`
      })
      expect(ran.stderr).toBe("")
      expect(JSON.parse(ran.stdout)).toEqual(
        expect.arrayContaining(["--max-old-space-size=176", "--max-semi-space-size=8", "--no-allocation-site-pretenuring"])
      )
    })
  )

  it.effect("npx runs a bin with the Node npm install brought, whatever the PATH's Node is", () =>
    Effect.gen(function* () {
      const ran = yield* runWithUserPath("/usr/bin/env", ["npx", "--no-install", "productdir-import", "--help"])
      expect(ran.stderr).not.toContain("needs Node.js")
      expect(ran.stdout).toContain("DESCRIPTION")
      expect(ran.code).toBe(0)
    })
  )

  it.effect("npm run builds first without a word of its own: the program's output is the program's", () =>
    Effect.gen(function* () {
      const ran = yield* runWithUserPath("/usr/bin/env", ["npm", "run", "-s", "import", "--", "--help"])
      expect(ran.code, ran.stderr).toBe(0)
      expect(ran.stdout).toContain("DESCRIPTION")
      expect(ran.stdout).not.toMatch(/turbo|Tasks:|Packages in scope/)
      expect(ran.stderr).toBe("")
    })
  )

  layer(serverLayer(memoryStores()), { excludeTestServices: true })((it) => {
    it.effect("GET / describes every query parameter in the OpenAPI document's own words", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const index = bodyOf<{
          paths: ReadonlyArray<{ method: string; path: string; query: ReadonlyArray<{ name: string; description: string }> }>
        }>(yield* request(`${base}/`))
        const doc = bodyOf<{
          paths: Record<
            string,
            Record<string, { parameters?: ReadonlyArray<{ name: string; in: string; schema: { description?: string } }> }>
          >
        }>(yield* request(`${base}/openapi.json`))
        const parameters = index.paths.flatMap((entry) => entry.query.map((query) => ({ ...query, at: `${entry.method} ${entry.path}` })))
        expect(parameters.map((p) => `${p.at} ${p.name}`)).toEqual(
          expect.arrayContaining([
            "GET /products q",
            "GET /products limit",
            "GET /entities/{slug} format",
            "GET /entities/{slug}/problems cursor"
          ])
        )
        for (const parameter of parameters) {
          const [method = "", path = ""] = parameter.at.split(" ")
          const declared = doc.paths[path]?.[method.toLowerCase()]?.parameters?.find((p) => p.in === "query" && p.name === parameter.name)
          expect(parameter.description.length, `${parameter.at} ${parameter.name}`).toBeGreaterThan(10)
          expect(parameter.description, `${parameter.at} ${parameter.name}`).toBe(declared?.schema.description)
        }
      })
    )

    it.effect("/llms.txt says how to register and vote, and its examples work as written", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const guide = (yield* request(`${base}/llms.txt`)).text
        const vote = guide.slice(guide.indexOf("## Vote"), guide.indexOf("## Reference"))
        // The calls are explained where they are named, not left to the OpenAPI document.
        expect(vote).not.toContain("/openapi.json")
        // Each field with what it means: a description lost from the OpenAPI document left "`reason` (optional): ".
        for (const field of ["name", "contact", "entity_id", "direction", "reason"])
          expect(vote).toMatch(new RegExp(`^- \`${field}\`(?: \\(optional\\))?: \\S.{10,}$`, "m"))
        const examples = [...vote.matchAll(/```http\n(POST \S+)\n([\s\S]*?)\n\n(\{[\s\S]*?\})\n```/g)].map((m) => ({
          line: m[1] ?? "",
          headers: Object.fromEntries(
            (m[2] ?? "").split("\n").map((h) => [h.slice(0, h.indexOf(":")).toLowerCase(), h.slice(h.indexOf(":") + 1).trim()])
          ),
          body: JSON.parse(m[3] ?? "{}") as Record<string, unknown>
        }))
        expect(examples.map((e) => e.line)).toEqual(["POST /agents", "POST /vote"])
        const [register, cast] = examples
        expect(register!.headers["content-type"]).toBe("application/json")
        const registered = yield* postJson(`${base}/agents`, register!.body, register!.headers)
        expect(registered.status).toBe(201)
        const { api_key } = bodyOf<{ api_key: string }>(registered)
        expect(cast!.headers.authorization).toBe("Bearer <api_key>")
        const product = bodyOf<{ items: ReadonlyArray<{ slug: string }> }>(yield* request(`${base}/products?limit=1`)).items[0]!
        const voted = yield* postJson(
          `${base}/vote`,
          { ...cast!.body, entity_id: product.slug },
          { ...cast!.headers, authorization: `Bearer ${api_key}` }
        )
        expect(voted.status).toBe(201)
        expect(bodyOf<{ counted_as: string }>(voted).counted_as).toBe("agent")
      })
    )

    it.effect("/docs loads nothing from another origin and is small, compressed or not", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const page = yield* request(`${base}/docs`)
        expect(page.status).toBe(200)
        expect(page.headers.get("content-type")).toMatch(/^text\/html/)
        expect(page.text).not.toMatch(/scalar\.com/i)
        // Nothing that fetches: no script, no frame, no style sheet or image but this server's, no url() in the style.
        expect(page.text).not.toMatch(/<script|<iframe|@import|url\(/i)
        const loads = [...page.text.matchAll(/<(?:link|img|source)\b[^>]*\b(?:href|src)="([^"]*)"/g)].map((m) => m[1])
        expect(loads).toEqual(["/favicon.ico"])
        // Every operation of the OpenAPI document is on the page, and every link within the page lands.
        const doc = bodyOf<{ paths: Record<string, Record<string, unknown>> }>(yield* request(`${base}/openapi.json`))
        for (const [path, item] of Object.entries(doc.paths)) {
          for (const method of Object.keys(item)) expect(page.text).toContain(`${method.toUpperCase()}</span> <code>${path}</code>`)
        }
        const ids = new Set([...page.text.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]))
        const targets = [...page.text.matchAll(/href="#([^"]+)"/g)].map((m) => m[1])
        expect(targets.length).toBeGreaterThan(50)
        expect(targets.filter((target) => !ids.has(target))).toEqual([])
        // Scalar's page was 3.2 MB (776 KB as brotli); this one is about 75 KB (8 KB as brotli) for 14
        // operations and 55 schemas. The bounds leave room for the API to grow threefold.
        const bytes = new TextEncoder().encode(page.text).byteLength
        expect(bytes).toBeLessThan(250_000)
        // On the wire, as a browser asks for it (fetch would decode it).
        const wire = yield* onTheWire(`${base}/docs`, { "accept-encoding": "gzip, deflate, br" })
        expect(brotliDecompressSync(wire).byteLength).toBe(bytes)
        expect(wire.byteLength).toBeLessThan(30_000)
      })
    )

    it.effect("/favicon.ico is a small icon, cached by browsers and revalidated by its tag", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const icon = yield* Effect.promise(() => fetch(`${base}/favicon.ico`))
        const bytes = new Uint8Array(yield* Effect.promise(() => icon.arrayBuffer()))
        expect(icon.status).toBe(200)
        expect(icon.headers.get("content-type")).toBe("image/x-icon")
        // An ICO header: reserved 0, type 1 (icon), one image of 16×16 at 32 bits per pixel.
        expect([...bytes.slice(0, 8)]).toEqual([0, 0, 1, 0, 1, 0, 16, 16])
        expect(bytes.length).toBeLessThan(4096)
        const maxAge = Number(/max-age=(\d+)/.exec(icon.headers.get("cache-control") ?? "")?.[1])
        expect(maxAge).toBeGreaterThanOrEqual(86_400)
        const etag = icon.headers.get("etag") ?? ""
        expect(etag).not.toBe("")
        const again = yield* request(`${base}/favicon.ico`, { headers: { "if-none-match": etag } })
        expect(again.status).toBe(304)
      })
    )
  })
})
