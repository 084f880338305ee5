/**
 * findOverlap (src/integrity/coordinatedGroups.ts) on windows built column by column: a slow ring found by the voters its
 * products share, whether the window holds each product's voters as one sorted stretch of its voter column (a
 * window read by product, then voter, as both stores read it) or not (a product's votes apart, or broken by a
 * cleared vote): the same group either way.
 */
import { assert, describe, it } from "@effect/vitest"
import { type LedgerWindow, type ProductId, productOf, runsOf } from "@productdir/domain"
import { seeded } from "@productdir/fixtures"
import { findOverlap } from "../src/integrity/coordinatedGroups.ts"
import { voterRanks } from "../src/integrity/ranks.ts"

interface Row {
  readonly product: number
  readonly voter: number
  readonly seconds: number
  readonly cleared: 0 | 1
}

const PRODUCTS = 200
const VOTERS = 400
/** The ring: voters 380..394 on products 190..195, at times of their own over a week. */
const RING = { voters: [380, 394], products: [190, 195] } as const

const rows = (): Array<Row> => {
  const random = seeded(11)
  const seen = new Set<string>()
  const out: Array<Row> = []
  const add = (product: number, voter: number, cleared: 0 | 1 = 0) => {
    if (seen.has(`${product}:${voter}`)) return
    seen.add(`${product}:${voter}`)
    out.push({ product, voter, seconds: random.int(0, 7 * 86_400), cleared })
  }
  // Benign voters: three products each, at random.
  for (let voter = 0; voter < 360; voter++) for (let k = 0; k < 3; k++) add(random.int(0, PRODUCTS - 1), voter)
  for (let voter = RING.voters[0]; voter <= RING.voters[1]; voter++) {
    for (let product = RING.products[0]; product <= RING.products[1]; product++) add(product, voter)
    add(random.int(0, 29), voter)
  }
  return out
}

/** The window of `rows` in their order (by product: a window's runs). */
const windowOf = (rows: ReadonlyArray<Row>): LedgerWindow => ({
  since: new Date(0),
  products: Array.from({ length: PRODUCTS }, (_, p) => `00000000-0000-4000-8000-${String(p).padStart(12, "0")}` as ProductId),
  voters: Array.from({ length: VOTERS }, (_, v) => `ip:${String(v).padStart(4, "0")}`),
  networks: [],
  starts: runsOf(rows.length, (i) => rows[i]!.product, PRODUCTS),
  voter: Int32Array.from(rows, (r) => r.voter),
  networkOf: () => -1,
  seconds: Int32Array.from(rows, (r) => r.seconds),
  counting: new Uint8Array(rows.length),
  direction: new Uint8Array(rows.length),
  cleared: Uint8Array.from(rows, (r) => r.cleared),
  standing: new Uint8Array(VOTERS)
})

const byProductThenVoter = (a: Row, b: Row) => a.product - b.product || a.voter - b.voter

/** The groups found, told by their keys, not by the window's indices of their votes. */
const found = (window: LedgerWindow) =>
  findOverlap(window, voterRanks(window)).map((g) => ({
    members: g.members,
    products: g.products,
    votes: g.votes.map((i) => `${productOf(window, i)}:${window.voter[i]}`).sort()
  }))

describe("findOverlap", () => {
  it("finds the slow ring in a window held by product then voter", () => {
    const groups = found(windowOf(rows().sort(byProductThenVoter)))
    assert.strictEqual(groups.length, 1)
    assert.deepStrictEqual(
      groups[0]!.members,
      Array.from({ length: 15 }, (_, k) => 380 + k)
    )
    assert.deepStrictEqual(groups[0]!.products, [190, 191, 192, 193, 194, 195])
    assert.strictEqual(groups[0]!.votes.length, 90)
  })

  it("finds the same ring where a product's voters are not one sorted stretch of the column", () => {
    const sorted = found(windowOf(rows().sort(byProductThenVoter)))
    // Each product's votes in the order they were cast: no product's voters are in order.
    const cast = rows().sort((a, b) => a.product - b.product || a.seconds - b.seconds || a.voter - b.voter)
    assert.deepStrictEqual(found(windowOf(cast)), sorted)
    // By product then voter, each ring product's run broken by a vote of a group an operator cleared.
    const broken = [
      ...rows(),
      ...[190, 191, 192, 193, 194, 195].map((product) => ({ product, voter: 370, seconds: 0, cleared: 1 as const }))
    ]
    assert.deepStrictEqual(found(windowOf(broken.sort(byProductThenVoter))), sorted)
  })
})
