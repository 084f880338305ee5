import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { API_MAIN, signalGroup, start } from "./processes.ts"

describe("starting the service", () => {
  it("`npm start` builds and serves the sample catalog on the embedded store", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "productdir-start-"))
    const server = start("npm", ["start", "--silent"], { DATA_DIR: dataDir })
    try {
      const base = await server.url
      const page = (await (await fetch(`${base}/products?limit=1`)).json()) as { items: Array<{ id: string; name: string }> }
      expect(page.items).toHaveLength(1)
      expect(page.items[0]!.name.length).toBeGreaterThan(0)
      expect(server.output()).toContain(`${base}/docs`)
    } finally {
      signalGroup(server.child, "SIGKILL")
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)

  it("the server stops cleanly on SIGTERM (exit 0) and keeps its data for the next start", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "productdir-start-"))
    try {
      const first = start(process.execPath, [API_MAIN], { DATA_DIR: dataDir })
      const base = await first.url
      const page = (await (await fetch(`${base}/products?limit=1`)).json()) as { items: Array<{ id: string }> }
      const id = page.items[0]!.id
      const vote = await fetch(`${base}/vote`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ entity_id: id })
      })
      expect(vote.status).toBe(201)
      first.child.kill("SIGTERM")
      expect(await first.exited).toBe(0)

      const second = start(process.execPath, [API_MAIN], { DATA_DIR: dataDir })
      const again = await second.url
      const repeat = await fetch(`${again}/vote`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ entity_id: id })
      })
      expect(((await repeat.json()) as { status: string }).status).toBe("unchanged")
      expect(second.output()).not.toContain("seeded the sample catalog")
      second.child.kill("SIGINT")
      expect(await second.exited).toBe(0)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)
})
