/**
 * The MCP endpoint against the official conformance suite
 * (@modelcontextprotocol/conformance 0.1.16), run as its own process with this
 * repository's Node, as an MCP client would. Each scenario must pass with no
 * failed check.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, References } from "effect"
import { McpServer } from "effect/ai"
import { HttpRouter } from "effect/http"
import { CatalogStore } from "@productdir/domain"
import { sampleCatalog } from "@productdir/fixtures/sample"
import { execFile } from "node:child_process"
import { resolve } from "node:path"
import { ApiConfig, AppRoutes, Lifecycle, NodeServerLive } from "../src/index.ts"
import { baseUrl, storeVariants } from "./harness.ts"

const SUITE = resolve(import.meta.dirname, "..", "..", "..", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
// Built from the escape code point so the linter sees no control character in a regex literal.
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")

/**
 * Every server scenario of the suite (`conformance list --server`) that tests
 * what this server does. Left out, because each needs a fixture of the suite's
 * reference server that a product directory does not have, so against any
 * other server it fails or checks nothing:
 * - tools-call-simple-text, -image, -audio, -embedded-resource, -mixed-content,
 *   -with-logging, -error, -with-progress, -sampling, -elicitation,
 *   json-schema-2020-12, elicitation-sep1034-defaults, elicitation-sep1330-enums:
 *   they call or list the reference server's test tools (test_simple_text,
 *   json_schema_2020_12_tool, …);
 * - server-sse-polling: it calls the test tool test_reconnection, and without it
 *   passes 0 of 0 checks;
 * - resources-read-text, resources-read-binary, resources-templates-read: they
 *   read test://static-text, test://static-binary, test://template/{id}/data;
 * - prompts-get-simple, -with-args, -embedded-resource, -with-image: they get
 *   the reference server's test prompts (this server has no prompts).
 * resources-subscribe and resources-unsubscribe subscribe to
 * test://watched-resource, a resource of the reference server: the server here
 * gets that one resource (a static one, below), because it refuses a
 * subscription to a URI it does not have.
 */
export const SCENARIOS = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "completion-complete",
  "tools-list",
  "resources-list",
  "resources-subscribe",
  "resources-unsubscribe",
  "prompts-list",
  "server-sse-multiple-streams",
  "dns-rebinding-protection"
]

/** The reference server's resource the subscription scenarios subscribe to. */
const WatchedResource = McpServer.resource({
  uri: "test://watched-resource",
  name: "watched-resource",
  description: "The conformance suite's subscription fixture.",
  mimeType: "text/plain",
  content: Effect.succeed("watched")
})

const SampleSeeded = Layer.effectDiscard(CatalogStore.use((catalog) => catalog.upsert(sampleCatalog())))

/** The served API (as harness.ts serves it) with the suite's fixture resource beside the products. */
const conformanceServer = <S>(stores: Layer.Layer<S, unknown>) =>
  HttpRouter.serve(Layer.provideMerge(WatchedResource, AppRoutes), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeServerLive),
    Layer.provideMerge(Lifecycle.layer),
    Layer.provideMerge(SampleSeeded),
    Layer.provideMerge(stores),
    // Warnings and errors only, as harness.ts's server: a green run prints no access log.
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Warn")),
    Layer.provide(
      ApiConfig.layerWith({
        votesPerAddress: 0,
        votesPerVoter: 0,
        registrationsPerNetwork: {},
        anonymousVotesPerNetwork: {},
        directoryFetchesPerNetwork: {},
        burstGuard: undefined
      })
    )
  )

const runScenario = (url: string, scenario: string) =>
  Effect.callback<{ readonly output: string }>((resume) => {
    execFile(
      process.execPath,
      [SUITE, "server", "--url", url, "--scenario", scenario],
      { env: { ...process.env, NO_COLOR: "1" } },
      (_error, stdout, stderr) => resume(Effect.succeed({ output: `${stdout}\n${stderr}`.replace(ANSI_COLOUR, "") }))
    )
  })

/** The suite's scenario list: when a new version of the suite adds one, this says to look at it. */ const runList = Effect.callback<{
  readonly output: string
}>((resume) => {
  execFile(process.execPath, [SUITE, "list", "--server"], { env: { ...process.env, NO_COLOR: "1" } }, (_error, stdout, stderr) =>
    resume(Effect.succeed({ output: `${stdout}\n${stderr}`.replace(ANSI_COLOUR, "") }))
  )
})

const variant = storeVariants()[0]!

describe(`MCP conformance suite on ${variant.name}`, () => {
  layer(conformanceServer(variant.stores()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
    it.effect("the suite's server scenarios are those above and the ones left out", () =>
      Effect.gen(function* () {
        const { output } = yield* runList
        const listed = [...output.matchAll(/^\s+- ([a-z0-9-]+) \[/gm)].map((m) => m[1])
        expect(listed.length, output).toBe(32)
        for (const scenario of SCENARIOS) expect(listed).toContain(scenario)
      })
    )
    for (const scenario of SCENARIOS) {
      it.effect(`scenario ${scenario} passes`, () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const { output } = yield* runScenario(`${base}/mcp`, scenario)
          const result = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output)
          expect(result, output).not.toBeNull()
          expect(Number(result![3]), output).toBe(0)
          expect(Number(result![1]), output).toBeGreaterThan(0)
        })
      )
    }
  })
})
