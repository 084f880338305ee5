/**
 * A search's cost is bounded whatever its words: the longest query a client may send (200 characters, one
 * word of distinct CJK characters or of letters) does not take the API down. The typo lookup of such a
 * word made every one-edit variant of it (94,000 strings for 200 CJK characters), and six of those
 * searches at once took the API on a PostgreSQL server, run as `npm start` runs it (its heap capped),
 * past its heap limit; on PGlite, which answers one statement at a time, each took seconds.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { join } from "node:path"
import { testTargets } from "@productdir/store-postgres/testing"
import { ROOT, signalGroup, start } from "./processes.ts"

const BIN = join(ROOT, "apps/api/bin/productdir-api.js")

/** 200 distinct CJK characters from `offset`, or 200 letters a-z in an order of their own. */
const longWord = (kind: "cjk" | "latin", offset: number) =>
  Array.from({ length: 200 }, (_, i) =>
    kind === "cjk" ? String.fromCodePoint(0x4e00 + offset * 200 + i) : String.fromCharCode(97 + ((offset * 7 + i * 13) % 26))
  ).join("")

reportLeftOut("hostile searches", storesLeftOut())
for (const variant of testTargets()) {
  describe(`hostile searches on ${variant.name}`, { timeout: 180_000 }, () => {
    const cleanup: Array<() => Promise<void> | void> = []
    afterEach(async () => {
      for (const f of cleanup.splice(0)) await f()
    })

    it("sixteen at once of the longest words a query may hold are answered, and the API stays up", async () => {
      const target = await variant.make()
      cleanup.push(() => target.dispose())
      const server = start(BIN, [], { ...target.env, SEED: "sample" })
      cleanup.unshift(() => signalGroup(server.child, "SIGKILL"))
      const base = await server.url
      const statuses: Array<number | string> = []
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(
          Array.from({ length: 16 }, async (_, i) => {
            const q = longWord(i % 2 === 0 ? "cjk" : "latin", round * 16 + i)
            try {
              const response = await fetch(`${base}/products?q=${encodeURIComponent(q)}`)
              await response.text()
              return response.status
            } catch (error) {
              return String((error as Error).cause ?? error)
            }
          })
        )
        statuses.push(...answers)
      }
      expect(
        statuses.filter((s) => s !== 200),
        server.output().slice(-2_000)
      ).toEqual([])
      expect((await fetch(`${base}/healthz`)).status).toBe(200)
    })
  })
}
