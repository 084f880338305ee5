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
  "0001_products_and_votes.sql": "4342598a022d6abbe49bec1c07aef61fff41fba6aad3f5ab4cedc8e616780d16",
  "0002_agents_and_shared_limits.sql": "e9f5f2d879066eda30d27e57bb224079fd76f0acb14bb14178f9a3017cec01fb",
  "0003_change_feed.sql": "f351045df419918810d596c9a32e4f74f3e2948ebe80afa8841d898f39d1e6a1",
  "0004_cast_vote.sql": "2da9aad85cf72616504f136cbc8361fe676d367f5967af9393748b926b4815b0",
  "0005_search.sql": "22edf3907ca0e6452f21a8b66c24ea50a199d86379e03293aac679bb779c26ae",
  "0006_cast_vote_within.sql": "c7c0b072e4763f7bf5d2de736c6b2df2fc1a764bd0d601ede388006b66d65207",
  "0007_search_apart.sql": "7bc2dcf9d446d0792bb0a35bd3739712de2e284b4256fc3639bb65715d403a9e",
  "0008_search_before_product.sql": "05c95f7963a4786d03069893e58e08743535f2a7d50feb5550972b9b01f6a8ae",
  "0009_signature_nonces.sql": "32feacd727fec43a37f41b000e698bc74f0bce49eac57209ef01dbc0b614b325",
  "0010_routines.sql": "71ea2f06182d3b0ac652682900e1176528155b4d2d4636ac8f8d273c852e7e73",
  "0011_crowd_defense.sql": "8f1e1475797895b672371661bf57fa3df38d5f8b0425d10275dee8af44fba211",
  "0012_search_lists.sql": "7cbd4508aa6eef4d4c2994b2cca36b2824c69b924370f14dd5c64b9325ba99a3",
  "0013_search_names.sql": "e13af0a00dc1293f0162b540e090bc1cb8a190daf00db9d86472b7796d2bd7d2",
  "0014_search_starts.sql": "21c338402f6bcd9ac833deb9da832a5aeb94a852d751d624afeb97c855e7ea3c",
  "0015_problem_keys.ts": "956595fdb13b073728cbf6636477bc913eea5ea66bdb5e3c60fb41fbd0353afe",
  "0016_agents_by_key.sql": "c20169366e32f34056fa678ba273dbbeecbc08c4b3f351932972b2cdc05bb09c",
  "0017_problem_look_alikes.ts": "1ac0c2dd2fb497abe8752fc6a37d9966b1ebb47513413790ec71be870fcdd3d7",
  "0018_category_listings.sql": "fa21c2e0bbe91b17c0b1ef9de26a54be6e4a5d2d9a9f983df6a5ce4463560ad3",
  "0019_vote_weights.sql": "f8dfb0eac42a54ce5eb03fd26b5eec5444a8bc42ce95cf4e9a8bd965f756ad90",
  "0020_report_networks.sql": "c87d356c4f4323171323720262f74e6f87a416111fa9333d0f8a2eeec356f27b",
  "0021_drop_superseded.sql": "07c7b601d6e165b0b77b7d664d3676966f3212e3be8cb6477fc905c138d85700",
  "0022_product_versions.sql": "c53b32c6ab80221a50efb3241a8c25952cec64ba27d8fe60134722862e9c66e7",
  "0023_publishers.sql": "c37383403f7bdc0a78f5199fddd46fa765bb9003cb540e2736d3f8c1edbb6099",
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
      ...readdirSync(DIRECTORY).filter((f) => /^\d{4}_.*\.(sql|ts)$/.test(f)),
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
      .map((f) => f.replace(/\.(sql|ts)$/, ""))
      .sort()
    expect([...KNOWN_MIGRATIONS]).toEqual(listed)
  })
})
