/**
 * The published packages as other projects get them: each packed with `npm pack`,
 * installed into a fresh project outside the workspace with only effect beside
 * it (and what the registry installs with them), and its README's example run there with plain Node. The client's example
 * runs against this API, served on a real socket.
 */
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import {
  installInFreshProject,
  pack,
  packDependenciesOf,
  packInstalled,
  packNodeTypes,
  packTypeScript,
  readmeExample,
  readmeExamples,
  removeScratchFolders,
  runExample,
  scratchFolder,
  typeCheck
} from "@productdir/testkit"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"

/** effect as the registry serves it, packed from the installed copy: no network in the tests. */
const effect = () => packInstalled("effect")

describe("published packages", { timeout: 180_000 }, () => {
  afterAll(removeScratchFolders)

  it("@productdir/domain installs with only effect, and its README's example runs", async () => {
    const tarballs = scratchFolder("productdir-pack-")
    const dir = installInFreshProject([pack("domain", tarballs), effect(), ...packDependenciesOf("domain")])
    const output = await runExample(dir, readmeExample("domain"))
    expect(output).toContain("trust of 90 up, 10 down: 86")
    expect(output).toContain("nobody voted: no votes yet")
    expect(output).toContain("recorded unchanged recorded changed")
    expect(output).toMatch(
      /counters: \{ up: 0, down: 2 \} trust: 50\/100 from 2 votes, 0% up \(0\.05 votes' worth by standing: thin evidence\)/
    )
    expect(output.trim().split("\n").slice(-2)).toEqual(["Success", "Failure"])
  })

  it("@productdir/contract installs with its domain and effect, and its README's example runs", async () => {
    const tarballs = scratchFolder("productdir-pack-")
    const dir = installInFreshProject([
      pack("domain", tarballs),
      pack("contract", tarballs),
      effect(),
      ...packDependenciesOf("domain", "contract")
    ])
    const output = await runExample(dir, readmeExample("contract"))
    expect(output).toContain("POST /vote")
    expect(output).toContain("GET /entities/{slug}/problems")
    expect(output).toMatch(/MCP tools: .*vote/)
  })

  layer(serverLayer(memoryStores()), { excludeTestServices: true })((it) => {
    it.effect(
      "@productdir/client installs with its contract, domain and effect; every README example compiles with tsc --strict and runs against this API",
      () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const tarballs = scratchFolder("productdir-pack-")
          const dir = installInFreshProject([
            pack("domain", tarballs),
            pack("contract", tarballs),
            pack("client", tarballs),
            effect(),
            ...packDependenciesOf("domain", "contract", "client"),
            ...packTypeScript(),
            ...packNodeTypes()
          ])
          const examples = readmeExamples("client", "ts")
          expect(examples).toHaveLength(2)
          const files = Object.fromEntries(examples.map((code, i) => [`example-${i + 1}.ts`, code]))
          // Diagnostics are the rejection's message: a type error fails here, naming file, line and code.
          yield* Effect.promise(() => typeCheck(dir, files))

          const run = (file: string) => Effect.promise(() => runExample(dir, files[file] ?? "", { PRODUCTDIR_URL: base }, file))
          const first = yield* run("example-1.ts")
          expect(first).toMatch(/: trust \d+/)
          expect(first).toMatch(/: \d+ known problems/)
          expect(first).toMatch(/vote recorded, counted as agent; trust now \d+/)
          expect(first).toContain('No product has the id or slug "no-such-product"')

          const second = yield* run("example-2.ts")
          expect(second).toMatch(/^record: Tallyhouse, \S+ pricing, version \d+$/m)
          expect(second).toMatch(/^view: Tallyhouse, \d+ plans, top problems \d+$/m)
          expect(second).toMatch(/^a detail record$/m)
          expect(second).toMatch(/^\d+ problems; the most reported: .+$/m)
        })
    )
  })
})
