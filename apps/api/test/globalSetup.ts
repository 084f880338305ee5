/**
 * Once per run of this package's tests: an embedded data directory made by a real start of the API
 * (migrated, nothing seeded), for the tests' API processes to start from. A first start on an empty
 * directory spends seconds making the database; the tests that are not about that start from a copy
 * (processes.ts, `startApi`), and the ones that are ask for a fresh directory.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { API_MAIN, signalGroup, start } from "./processes.ts"

export const TEMPLATE_VARIABLE = "PRODUCTDIR_TEST_DATA_TEMPLATE"

export default async function setup() {
  const root = mkdtempSync(join(tmpdir(), "productdir-api-template-"))
  const dataDir = join(root, "data")
  const api = start(process.execPath, [API_MAIN], { DATA_DIR: dataDir, SEED: "none" })
  await api.url
  signalGroup(api.child, "SIGTERM")
  const code = await api.exited
  if (code !== 0) throw new Error(`the template API exited with ${code}:\n${api.output()}`)
  process.env[TEMPLATE_VARIABLE] = dataDir
  return () => rmSync(root, { recursive: true, force: true })
}
