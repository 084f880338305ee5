/**
 * A migration is frozen once released (src/migrations/index.ts): a database that ran it long ago and one that runs
 * it today must end up the same, so its file, and the data it reads (src/migrations/data/), never change again. Each
 * is listed here with its SHA-256. A change to a listed file fails this test: write a new migration instead. A new
 * migration fails it too until it is listed, its author saying, by adding its line, that it ships as it stands.
 */
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { KNOWN_MIGRATIONS } from "../src/migrations/index.ts"

const RELEASED: Readonly<Record<string, string>> = {
  "0001_products_and_votes.ts": "c322712405f5bfe6ca581b2714dd4ab490552a37bccf1e87040b336c279dee5e",
  "0002_agents_and_shared_limits.ts": "bb357eb9ac9cf145985c265fd5e0ad908dcb726721ca3f35790e01dab5c5e46f",
  "0003_change_feed.ts": "4679ae90fc6bb3162871b1881ea18e421d3a227b66eb1289313fddf2e1f7082d",
  "0004_cast_vote.ts": "5e569a0bdfd66e640825292e6cb64a8094e401fe42d8acdc6e15c58f268ea73b",
  "0005_search.ts": "8242bb8465d685f7e15982219f6e588102cd19c65cd3e759ca7cc563c739aedd",
  "0006_cast_vote_within.ts": "a446a31afffb12edfcfdfe247a7508d5f6d5091977f7cb7df36667d6b61851ca",
  "0007_search_apart.ts": "d241abfd281a2d4b70e14ac138667da8d834601565feb3a87e20af5294dbeac2",
  "0008_search_before_product.ts": "250c00e6cb9f6dca415b25641b5b9c007c62063790920f6c4b839345523cebb7",
  "0009_signature_nonces.ts": "cfc8eddf31ccfcda079a249e3422711617a1b9f69a897977b2e1da7fe69da176",
  "0010_routines.ts": "6f00154b90d53d4b4f1f013a56f18f528f4dc3a05a8871b9282f380a4daee84b",
  "0011_crowd_defense.ts": "3a6da751911d8884a53c8a1084665610eb93f45227d3c3f88c2973d15c358532",
  "0012_search_lists.ts": "ddf960bc3cb0d2095eb05705563be687796b3ed52f92dc185dd9d7e9b8fccf4c",
  "0013_search_names.ts": "772ac84834c4e799a109ce4342a6a27ae60158d8c61197f70402e4eef4dbb7ed",
  "0014_search_starts.ts": "155bf21a4c5b41a585c424257f2edc8079db61f2e7b09dee6200a2445bd04f16",
  "0015_problem_keys.ts": "956595fdb13b073728cbf6636477bc913eea5ea66bdb5e3c60fb41fbd0353afe",
  "0016_agents_by_key.ts": "bdaf9797b57927e0e3c16f43a030f44e030df74522e78b2b50694f58363314bb",
  "0017_problem_look_alikes.ts": "1ac0c2dd2fb497abe8752fc6a37d9966b1ebb47513413790ec71be870fcdd3d7",
  "0018_category_listings.ts": "c8d510ae04d33fc68c56ea69fa6b7b25f3a877a43fb3dae184da05ed31e7ccbf",
  "0019_vote_weights.ts": "d627b195f4dedd55e0e9d1cf7059772224dc69141562b7e9e79335cde03f554c",
  "0020_report_networks.ts": "0d6c2d18a29260bc30b3547d44dea3d64a2ad54abc7274242baf803142a3b48e",
  "data/0017_confusables.json": "21d5bce11720b494cc2fab889165b1ea674b679a317176f0df461ac0ba6e98b0"
}

const DIRECTORY = new URL("../src/migrations/", import.meta.url)
const sha256 = (file: string) =>
  createHash("sha256")
    .update(readFileSync(new URL(file, DIRECTORY)))
    .digest("hex")

describe("released migrations", () => {
  it("every migration file and every file of data they read is listed, and unchanged since it was", () => {
    const files = [
      ...readdirSync(DIRECTORY).filter((f) => /^\d{4}_.*\.ts$/.test(f)),
      ...readdirSync(new URL("data/", DIRECTORY)).map((f) => `data/${f}`)
    ].sort()
    expect(files, "a migration file or data file that is not listed: list it (or, if it is an old one renamed, undo that)").toEqual(
      Object.keys(RELEASED).sort()
    )
    const changed = files.filter((file) => sha256(file) !== RELEASED[file])
    expect(changed, "released migrations change only by a new migration: undo the change to these").toEqual([])
  })

  it("runs every migration listed, in the order of their numbers", () => {
    const listed = Object.keys(RELEASED)
      .filter((f) => !f.startsWith("data/"))
      .map((f) => f.replace(/\.ts$/, ""))
      .sort()
    expect([...KNOWN_MIGRATIONS]).toEqual(listed)
  })
})
