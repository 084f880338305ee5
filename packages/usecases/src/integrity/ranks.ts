/**
 * The voters of a window in an order the ledger alone decides (docs/threat-model.md, "One verdict per ledger"): by
 * when each first voted in the window, then what it voted first, then what it voted in all. A store numbers its
 * voters by their keys (`agent:<id>`, `ip:<hash>`), which a replay of the same votes into a fresh database draws
 * anew: everything the pass does by a voter's number (the MinHash signatures that pick which products are compared,
 * the order votes of one second are replayed in) would follow the ids, and the same attack could get a different
 * verdict run after run. Ranked so, two voters are tied only when they voted the same products the same way at the
 * same seconds: interchangeable, so whichever goes first the verdict is the same.
 */
import { forEachVote, type LedgerWindow } from "@productdir/domain"

/** A 32-bit mix (murmur3's finalizer). */
const mix = (value: number): number => {
  let h = value >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}

/**
 * `rank[v]`: voter `v`'s place in the ledger's order (0 first). Products are known by their place in the window,
 * which is by id: the same catalog, imported into a fresh database, keeps its ids. Linear in the votes, with three
 * columns of the voters (12 bytes a voter).
 */
export const voterRanks = (window: LedgerWindow): Int32Array => {
  const voters = window.voters.length
  const first = new Int32Array(voters).fill(0x7fffffff)
  const firstProduct = new Int32Array(voters).fill(0x7fffffff)
  // What a voter voted, as a sum of its votes' mixes: the same whatever order they are visited in.
  const profile = new Uint32Array(voters)
  forEachVote(window, (i, p) => {
    const v = window.voter[i]!
    const at = window.seconds[i]!
    if (at < first[v]! || (at === first[v]! && p < firstProduct[v]!)) {
      first[v] = at
      firstProduct[v] = p
    }
    profile[v] = (profile[v]! + mix(mix(p * 2 + window.direction[i]!) ^ at)) >>> 0
  })
  const order = Array.from({ length: voters }, (_, v) => v).sort(
    (a, b) => first[a]! - first[b]! || firstProduct[a]! - firstProduct[b]! || profile[a]! - profile[b]! || a - b
  )
  const rank = new Int32Array(voters)
  for (let k = 0; k < voters; k++) rank[order[k]!] = k
  return rank
}
