/**
 * The served OpenAPI document passes third-party linters with no error and no
 * warning: Redocly's recommended rules and Spectral's OpenAPI ruleset, as
 * configured at the repository's root (redocly.yaml, .spectral.yaml).
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { baseUrl, memoryStores, serverLayer } from "./harness.ts"
import { request } from "./http.ts"

const ROOT = resolve(import.meta.dirname, "..", "..", "..")
const bin = (name: string) => join(ROOT, "node_modules", ".bin", name)

const run = (command: string, args: ReadonlyArray<string>) =>
  Effect.callback<{ readonly code: number; readonly output: string }>((resume) => {
    execFile(command, args, { cwd: ROOT, env: { ...process.env, REDOCLY_TELEMETRY: "off", NO_COLOR: "1" } }, (error, stdout, stderr) =>
      resume(Effect.succeed({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, output: `${stdout}\n${stderr}` }))
    )
  })

describe("the OpenAPI document passes the linters", { timeout: 120_000 }, () => {
  layer(serverLayer(memoryStores()), { excludeTestServices: true })((it) => {
    it.effect("redocly lint (recommended) and spectral lint (spectral:oas): no errors, no warnings", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const document = yield* request(`${base}/openapi.json`)
        const file = join(mkdtempSync(join(tmpdir(), "productdir-openapi-")), "openapi.json")
        writeFileSync(file, document.text)

        const redocly = yield* run(bin("redocly"), ["lint", file, "--config", join(ROOT, "redocly.yaml"), "--format", "stylish"])
        expect(redocly.code, redocly.output).toBe(0)
        expect(redocly.output, redocly.output).not.toMatch(/\b(error|warning)\b\s+[a-z-]+/)
        expect(redocly.output).toContain("Your API description is valid")

        const spectral = yield* run(bin("spectral"), ["lint", file, "--ruleset", join(ROOT, ".spectral.yaml"), "--fail-severity", "warn"])
        expect(spectral.code, spectral.output).toBe(0)
        expect(spectral.output).toContain("No results with a severity of 'warn' or higher found")
      })
    )
  })
})
