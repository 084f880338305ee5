import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

// The domain is shared with other projects and runs anywhere: it may import effect and itself, nothing else.
describe("packages/domain", () => {
  it("imports nothing but effect", () => {
    const dir = join(import.meta.dirname, "..", "src")
    const offenders: Array<string> = []
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const source = readFileSync(join(dir, file), "utf8")
      for (const [, spec] of source.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
        if (spec === undefined || spec.startsWith("./") || spec === "effect" || spec.startsWith("effect/")) continue
        offenders.push(`${file}: ${spec}`)
      }
    }
    expect(offenders).toEqual([])
    const manifest = JSON.parse(readFileSync(join(dir, "..", "package.json"), "utf8"))
    expect(Object.keys(manifest.dependencies)).toEqual(["effect"])
  })
})
