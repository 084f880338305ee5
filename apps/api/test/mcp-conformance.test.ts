/**
 * The MCP endpoint against the official conformance suite
 * (@modelcontextprotocol/conformance), run as its own process with this
 * repository's Node, as an MCP client would. Each scenario must pass with no
 * failed check.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { resolve } from "node:path"
import { baseUrl, serverLayer, storeVariants } from "./harness.ts"

const SUITE = resolve(import.meta.dirname, "..", "..", "..", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
// Built from the escape code point so the linter sees no control character in a regex literal.
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")

export const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "prompts-list",
  "logging-set-level",
  "dns-rebinding-protection",
  "completion-complete"
]

const runScenario = (url: string, scenario: string) =>
  Effect.callback<{ readonly output: string }>((resume) => {
    execFile(
      process.execPath,
      [SUITE, "server", "--url", url, "--scenario", scenario],
      { env: { ...process.env, NO_COLOR: "1" } },
      (_error, stdout, stderr) => resume(Effect.succeed({ output: `${stdout}\n${stderr}`.replace(ANSI_COLOUR, "") }))
    )
  })

const variant = storeVariants()[0]!

describe(`MCP conformance suite on ${variant.name}`, () => {
  layer(serverLayer(variant.stores()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
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
