/**
 * Finding voter groups that vote in lockstep (CopyCatch, Beutel et al., WWW 2013; SynchroTrap, Cao
 * et al., CCS 2014): real voters vote on what they used, at their own times; a ring votes the same
 * products in the same windows. Two ways of looking, each ending in the same dense core:
 *
 * - `lockstep` (fast rings): votes in (product, hour) buckets, on two grids half an hour apart so a
 *   burst across an hour's boundary is still one bucket. Two voters that share a bucket on at least
 *   `minShared` products are a pair; pairs join into components.
 * - `overlap` (slow rings, any timing): products whose voters overlap far more than chance (MinHash
 *   signatures banded for candidates, then the exact overlap: at least `minShared` voters and half of
 *   the smaller product's) join into clusters; their voters are the candidates.
 *
 * Then the core: members who voted on at least `density` of the group's products (and `minShared`),
 * products voted on by at least `density` of its members and far more of them than chance would put there given
 * the product's popularity (`minLift`: a product half the window's voters voted is no sign that ten of them are a
 * group), peeled in turn until nothing changes. A group has `minMembers` voters and `minProducts` products; a small
 * one (`minSmallMembers` up to `minMembers`) must be surer still: each of its products at `smallLift` and nearly all
 * of its cells filled (`smallCoverage`). Deterministic: the same window gives the same groups, in the same order,
 * whatever the voters' ids (ranks.ts: the signatures hash a voter's rank in the ledger, not its number).
 */
import { free } from "@productdir/columns"
import { type LedgerWindow, productOf, votesIn } from "@productdir/domain"
import { Doubles, forEachRun, orderBy, UnionFind } from "./columns.ts"

export interface LockstepSettings {
  /** The width of a bucket, in seconds. */
  readonly bucketSeconds: number
  /** A bucket with more votes than this is a burst, left to the burst guard (its pairs would be too many to count). */
  readonly maxBucket: number
  /** Products two voters must share (in buckets, or in overlap) to be a pair. */
  readonly minShared: number
  readonly minMembers: number
  readonly minProducts: number
  /**
   * How many times more of a group's members voted a product than the window's other voters did: below it, a product
   * is no evidence of a group (a popular one, which its members voted as everyone does).
   */
  readonly minLift: number
  /**
   * A group smaller than `minMembers` is found when it has this many members, each of whom voted `smallShared` of its
   * products at least, every product at `smallLift` and `smallCoverage`. Lockstep pairs need `smallShared` products.
   */
  readonly minSmallMembers: number
  readonly smallShared: number
  readonly smallLift: number
  readonly smallCoverage: number
  /** The share of a group's products a member must have voted on, and of its members a product. */
  readonly density: number
  /** Products with fewer votes than this in the window are not compared for overlap. */
  readonly minVotesForOverlap: number
  /** How far from the middle of a product's votes by a group's members they may be, to count as one more of its targets. */
  readonly expansionSeconds: number
}

export const DEFAULT_LOCKSTEP: LockstepSettings = {
  bucketSeconds: 3_600,
  maxBucket: 200,
  minShared: 4,
  minMembers: 10,
  minProducts: 3,
  minLift: 4,
  minSmallMembers: 4,
  smallShared: 3,
  smallLift: 10,
  smallCoverage: 0.8,
  density: 0.5,
  minVotesForOverlap: 10,
  expansionSeconds: 302_400
}

/** A group found: its votes (indices into the window), members and products (indices too). */
export interface FoundGroup {
  readonly method: "lockstep" | "overlap" | "addresses"
  readonly votes: ReadonlyArray<number>
  /**
   * Held votes that are the group's too (a flood the burst guard caught): they stay held, and the pass's
   * replay leaves them out as it leaves out the group's other votes, so none is counted as a bystander.
   */
  readonly held?: ReadonlyArray<number> | undefined
  readonly members: ReadonlyArray<number>
  readonly products: ReadonlyArray<number>
}

/**
 * The votes that take part (not cleared by an operator), grouped by product: the vote at place k is
 * `order[k]`, and product p's places are `starts[p]..starts[p + 1]` (each one's votes in index order).
 * With no vote cleared they are the window's own runs: `order` is undefined and place k is vote k (no
 * copy of ten million indices).
 */
interface Runs {
  readonly order: Int32Array | undefined
  readonly starts: Int32Array
}

const voteAt = (runs: Runs, k: number): number => (runs.order === undefined ? k : runs.order[k]!)

const byProduct = (window: LedgerWindow): Runs => {
  const total = votesIn(window)
  let n = 0
  for (let i = 0; i < total; i++) if (window.cleared[i] === 0) n++
  if (n === total) return { order: undefined, starts: window.starts }
  const order = new Int32Array(n)
  const starts = new Int32Array(window.starts.length)
  let k = 0
  for (let p = 0; p + 1 < window.starts.length; p++) {
    starts[p] = k
    for (let i = window.starts[p]!; i < window.starts[p + 1]!; i++) if (window.cleared[i] === 0) order[k++] = i
  }
  starts[window.starts.length - 1] = k
  return { order, starts }
}

/**
 * `run` (vote indices) reordered in place by `keyOf`, ascending, ties kept in place order: an insertion
 * sort for a handful, else key and place packed in a double (a native numeric sort, no comparator).
 * Keys must be integers in [0, 2^31), runs shorter than 2^21.
 */
const sortRun = (run: Int32Array, keyOf: (i: number) => number, scratch: { keys: Float64Array; copy: Int32Array }) => {
  const length = run.length
  if (length <= 32) {
    for (let a = 1; a < length; a++) {
      const i = run[a]!
      const key = keyOf(i)
      let b = a - 1
      while (b >= 0 && keyOf(run[b]!) > key) {
        run[b + 1] = run[b]!
        b--
      }
      run[b + 1] = i
    }
    return
  }
  if (scratch.keys.length < length) {
    scratch.keys = new Float64Array(length)
    scratch.copy = new Int32Array(length)
  }
  const keys = scratch.keys.subarray(0, length)
  const copy = scratch.copy.subarray(0, length)
  copy.set(run)
  for (let k = 0; k < length; k++) keys[k] = keyOf(copy[k]!) * 2_097_152 + k
  keys.sort()
  for (let k = 0; k < length; k++) run[k] = copy[keys[k]! % 2_097_152]!
}

/**
 * The dense core of candidate votes `cells` (vote indices): members and products peeled in turn
 * until each member has voted on `density` of the products (and at least `minShared`) and each
 * product has `density` of the members. Undefined when what is left is no group.
 */
const core = (window: LedgerWindow, cells: ReadonlyArray<number>, method: FoundGroup["method"], settings: LockstepSettings) =>
  peeled(window, cells, method, settings, false) ?? peeled(window, cells, method, settings, true)

/**
 * The core as a group of `minMembers` or more (`small` false: each member on `minShared` of its products), or as a
 * small one (each on `smallShared`, held to the small group's bars).
 */
const peeled = (
  window: LedgerWindow,
  cells: ReadonlyArray<number>,
  method: FoundGroup["method"],
  settings: LockstepSettings,
  small: boolean
): FoundGroup | undefined => {
  // How many times more of the group's `members` voted `p` (`votes` of them) than of everyone else in the window: a
  // product half the directory votes is no sign of a group, however many of it voted it; one only the group votes
  // is. Against everyone else, not everyone: a ring's own votes would make its targets look popular in a small window.
  // A product no one else voted is the group's alone, however few others the window holds: a ring that has a window
  // to itself (a quiet hour, a new directory) is no less a ring.
  const voters = window.voters.length
  const lift = (p: number, votes: number, members: number) => {
    const byOthersVotes = window.starts[p + 1]! - window.starts[p]! - votes
    if (byOthersVotes <= 0) return Number.POSITIVE_INFINITY
    return votes / members / (byOthersVotes / Math.max(1, voters - members))
  }
  let votes = [...cells]
  const productOfVote = new Map(votes.map((i) => [i, productOf(window, i)]))
  const product = (i: number) => productOfVote.get(i)!
  for (;;) {
    const products = new Map<number, number>()
    const members = new Map<number, number>()
    for (const i of votes) {
      products.set(product(i), (products.get(product(i)) ?? 0) + 1)
      members.set(window.voter[i]!, (members.get(window.voter[i]!) ?? 0) + 1)
    }
    // A member voted `density` of the products and `minShared` of them, or all of a group's when it has fewer: a ring
    // that pushes three products has members on three (asking four of them let every three-product ring pass).
    const shared = Math.min(small ? settings.smallShared : settings.minShared, products.size)
    const memberFloor = Math.max(shared, settings.density * products.size)
    const keptMembers = votes.filter((i) => members.get(window.voter[i]!)! >= memberFloor)
    // Members first, then products: peeling both at once empties cores that a turn each keeps.
    const after = new Map<number, number>()
    const remaining = new Set<number>()
    for (const i of keptMembers) {
      after.set(product(i), (after.get(product(i)) ?? 0) + 1)
      remaining.add(window.voter[i]!)
    }
    const productFloor = settings.density * remaining.size
    const kept = keptMembers.filter((i) => {
      const n = after.get(product(i))!
      return n >= productFloor && lift(product(i), n, remaining.size) >= settings.minLift
    })
    if (kept.length === votes.length) break
    votes = kept
  }
  const members = [...new Set(votes.map((i) => window.voter[i]!))].sort((a, b) => a - b)
  const products = [...new Set(votes.map(product))].sort((a, b) => a - b)
  if (products.length < settings.minProducts || members.length < (small ? settings.minSmallMembers : settings.minMembers)) return undefined
  if (small) {
    if (members.length >= settings.minMembers) return undefined
    // A few voters in step is what friends who use the same tools look like too: found only when every product of
    // theirs is one hardly anyone else votes, and nearly every one of them voted each.
    const on = new Map<number, number>()
    for (const i of votes) on.set(product(i), (on.get(product(i)) ?? 0) + 1)
    const sure = [...on].every(([p, n]) => lift(p, n, members.length) >= settings.smallLift)
    if (!sure || votes.length < settings.smallCoverage * members.length * products.length) return undefined
  }
  return { method, votes: votes.sort((a, b) => a - b), members, products } satisfies FoundGroup
}

/** The two grids of buckets: on the hour, and half an hour later. */
const GRIDS = [0, 1] as const

/**
 * Each product's (product, window) buckets on both grids, as runs of `times` (the product's votes
 * sorted by time; a bucket is a stretch of it on either grid): `bucket(grid, start, end)` for each.
 */
const forEachBucket = (
  window: LedgerWindow,
  runs: Runs,
  settings: LockstepSettings,
  bucket: (grid: 0 | 1, times: Int32Array, start: number, end: number) => void
) => {
  const { starts } = runs
  const half = settings.bucketSeconds / 2
  const scratch = { keys: new Float64Array(0), copy: new Int32Array(0) }
  let times = new Int32Array(0)
  const seconds = (i: number) => window.seconds[i]!
  for (let r = 0; r + 1 < starts.length; r++) {
    const length = starts[r + 1]! - starts[r]!
    if (length < 2) continue
    if (times.length < length) times = new Int32Array(Math.max(length, 2 * times.length))
    const run = times.subarray(0, length)
    for (let k = 0; k < length; k++) run[k] = voteAt(runs, starts[r]! + k)
    sortRun(run, seconds, scratch)
    for (const grid of GRIDS) {
      const shift = grid * half
      let start = 0
      let at = Math.floor((window.seconds[run[0]!]! + shift) / settings.bucketSeconds)
      for (let k = 1; k <= length; k++) {
        const next = k === length ? Number.NaN : Math.floor((window.seconds[run[k]!]! + shift) / settings.bucketSeconds)
        if (next !== at) {
          bucket(grid, run, start, k)
          start = k
          at = next
        }
      }
    }
  }
}

/** How many stretches of voters the lockstep's pairs are kept in. */
const PAIR_STRETCHES = 64

/** Voters paired by sharing hour buckets on at least `smallShared` products, in components; each component's votes in shared buckets. */
export const findLockstep = (window: LedgerWindow, settings: LockstepSettings = DEFAULT_LOCKSTEP): ReadonlyArray<FoundGroup> => {
  const windowOf0 = (i: number) => Math.floor(window.seconds[i]! / settings.bucketSeconds)
  const runs = byProduct(window)

  // Pairs: a key per shared bucket. A pair on grid 1 counts only where grid 0 split it, so each product counts once.
  // Kept in stretches of the lower voter's number, each growing on its own: one column of them all would hold the
  // old and the grown copy at once as it grows, at the pass's peak. Visited stretch by stretch, each sorted, the
  // keys come in the same ascending order as the one column's.
  const stretch = Math.max(1, Math.ceil(window.voters.length / PAIR_STRETCHES))
  const stretches = Array.from({ length: Math.ceil(window.voters.length / stretch) }, () => new Doubles())
  forEachBucket(window, runs, settings, (grid, run, start, end) => {
    if (end - start < 2 || end - start > settings.maxBucket) return
    for (let a = start; a < end; a++) {
      const va = run[a]!
      for (let b = a + 1; b < end; b++) {
        const vb = run[b]!
        if (grid === 1 && windowOf0(va) === windowOf0(vb)) continue
        const lo = Math.min(window.voter[va]!, window.voter[vb]!)
        const hi = Math.max(window.voter[va]!, window.voter[vb]!)
        if (lo !== hi) stretches[Math.floor(lo / stretch)]!.push(lo * 2 ** 24 + hi)
      }
    }
  })
  const sets = new UnionFind(window.voters.length)
  const paired = new Set<number>()
  for (const pairs of stretches) {
    const sorted = pairs.sorted()
    for (let k = 0; k < sorted.length; ) {
      let end = k + 1
      while (end < sorted.length && sorted[end] === sorted[k]) end++
      if (end - k >= settings.smallShared) {
        const lo = Math.floor(sorted[k]! / 2 ** 24)
        const hi = sorted[k]! % 2 ** 24
        sets.union(lo, hi)
        paired.add(lo)
        paired.add(hi)
      }
      k = end
    }
    pairs.release()
  }

  // Cells: a member's votes in buckets that hold at least three members of its component.
  const component = new Map<number, number>()
  for (const voter of paired) if (sets.sizeOf(voter) >= settings.minSmallMembers) component.set(voter, sets.find(voter))
  const cells = new Map<number, Set<number>>()
  if (component.size > 0) {
    forEachBucket(window, runs, settings, (_grid, run, start, end) => {
      if (end - start < 3 || end - start > settings.maxBucket) return
      // Most buckets hold no member of a component: nothing is allocated for them.
      let members = 0
      for (let k = start; k < end && members < 3; k++) if (component.has(window.voter[run[k]!]!)) members++
      if (members < 3) return
      const byComponent = new Map<number, Array<number>>()
      for (let k = start; k < end; k++) {
        const i = run[k]!
        const c = component.get(window.voter[i]!)
        if (c === undefined) continue
        const list = byComponent.get(c)
        if (list === undefined) byComponent.set(c, [i])
        else list.push(i)
      }
      for (const [c, list] of byComponent) {
        if (list.length < 3) continue
        const set = cells.get(c) ?? new Set<number>()
        for (const i of list) set.add(i)
        cells.set(c, set)
      }
    })
  }
  return [...cells.keys()]
    .sort((a, b) => a - b)
    .flatMap((c) => {
      const found = core(window, [...cells.get(c)!], "lockstep", settings)
      return found === undefined ? [] : [found]
    })
}

/** A 32-bit mix (murmur3's finalizer) of a voter's rank under one of the signature's seeds. */
const mix = (value: number, seed: number): number => {
  let h = (value ^ seed) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}

// 16 bands of 2 minimums: two products whose voters are half the same are candidates with
// probability 1 - (3/4)^16 = 99%; products with a twentieth in common, 4%.
const SIGNATURE = 32
const BAND = 2
const SEEDS = Array.from({ length: SIGNATURE }, (_, j) => mix(j + 1, 0x9e3779b9))
/** Products in one LSH bucket at most: a bucket of more is a popular voter set, not a ring's. */
const MAX_BAND_BUCKET = 64

/** Products whose voters overlap far more than chance, clustered; each cluster's votes peeled to their core. */
export const findOverlap = (
  window: LedgerWindow,
  rank: Int32Array,
  settings: LockstepSettings = DEFAULT_LOCKSTEP
): ReadonlyArray<FoundGroup> => {
  // The voters of each product with enough votes, sorted: the x-th such product's are `from[x]..from[x] + size[x]`
  // of the window's voter column where it holds them so (a window read by product, then voter), else of `copies`
  // (`from` below zero: `~from`). Offsets, not a view apiece: a view is an object of its own, tens of MB for the
  // hundreds of thousands of products of ten million votes, held at the pass's peak.
  const runs = byProduct(window)
  const { starts } = runs
  const products = new Doubles()
  const from = new Doubles()
  const size = new Doubles()
  let copies = new Int32Array(0)
  let copied = 0
  for (let r = 0; r + 1 < starts.length; r++) {
    const start = starts[r]!
    const end = starts[r + 1]!
    if (end - start < settings.minVotesForOverlap) continue
    const first = voteAt(runs, start)
    let contiguous = voteAt(runs, end - 1) - first === end - start - 1
    for (let k = start + 1; contiguous && k < end; k++) contiguous = window.voter[voteAt(runs, k)]! > window.voter[voteAt(runs, k - 1)]!
    if (contiguous) from.push(first)
    else {
      if (copies.length < copied + end - start) {
        const grown = new Int32Array(Math.max(copied + end - start, 2 * copies.length, 1024))
        grown.set(copies.subarray(0, copied))
        copies = grown
      }
      const list = copies.subarray(copied, copied + end - start)
      for (let k = start; k < end; k++) list[k - start] = window.voter[voteAt(runs, k)]!
      list.sort()
      from.push(~copied)
      copied += end - start
    }
    products.push(r)
    size.push(end - start)
  }
  const count = products.length
  /** The column the x-th product's voters are in, and where they start in it. */
  const columnOf = (x: number): Int32Array => (from.at(x) >= 0 ? window.voter : copies)
  const firstOf = (x: number): number => {
    const at = from.at(x)
    return at >= 0 ? at : ~at
  }
  const listOf = (x: number): Int32Array => columnOf(x).subarray(firstOf(x), firstOf(x) + size.at(x))
  // MinHash signatures, a band (two minimums) at a time: products with the same band are candidates.
  // A band's buckets are found by sorting, not in a map of keys (16 keys a product: a gigabyte at ten
  // million votes); they are visited as a map of them would have been filled, band by band for each
  // product in turn, so that clusters form in the same order. A bucket is its members' places in a flat
  // column (`members`), and its key: its first member, then its band.
  const bucketKey = new Doubles()
  const bucketStart = new Doubles()
  const members = new Doubles()
  const h1 = new Uint32Array(count)
  const h2 = new Uint32Array(count)
  // A band's two hashes of every voter, made once a band: its lists read them (ascending, so the reads stream).
  const hashed1 = new Uint32Array(window.voters.length)
  const hashed2 = new Uint32Array(window.voters.length)
  // Within a run of equal first minimums, places ordered by (second minimum, place), packed in one double each
  // (a native numeric sort, no comparator) while places fit in 21 bits: exact below 2^53.
  const placeBits = Math.max(1, Math.ceil(Math.log2(count + 1)))
  const packs = placeBits <= 21
  const placeScale = 2 ** placeBits
  let packed = new Float64Array(64)
  for (let b = 0; b < SIGNATURE / BAND; b++) {
    const [s1, s2] = [SEEDS[b * BAND]!, SEEDS[b * BAND + 1]!]
    for (let v = 0; v < hashed1.length; v++) {
      hashed1[v] = mix(rank[v]!, s1)
      hashed2[v] = mix(rank[v]!, s2)
    }
    for (let x = 0; x < count; x++) {
      // Read in place, not through listOf: a view a product a band is five million objects at ten million votes.
      const column = columnOf(x)
      const first = firstOf(x)
      const last = first + size.at(x)
      let m1 = 0xffffffff
      let m2 = 0xffffffff
      for (let k = first; k < last; k++) {
        const a = hashed1[column[k]!]!
        const c = hashed2[column[k]!]!
        if (a < m1) m1 = a
        if (c < m2) m2 = c
      }
      h1[x] = m1
      h2[x] = m2
    }
    // By the first minimum (radix), then the second within equal firsts; equal pairs are a bucket.
    const byFirst = orderBy(count, (x) => h1[x]!)
    forEachRun(
      byFirst,
      (x) => h1[x]!,
      (start, end) => {
        if (end - start < 2) return
        let same: ArrayLike<number>
        if (packs) {
          if (packed.length < end - start) packed = new Float64Array(2 * (end - start))
          const keys = packed.subarray(0, end - start)
          for (let k = start; k < end; k++) keys[k - start] = h2[byFirst[k]!]! * placeScale + byFirst[k]!
          keys.sort()
          for (let k = 0; k < keys.length; k++) keys[k] = keys[k]! % placeScale
          same = keys
        } else same = Array.from(byFirst.subarray(start, end)).sort((x, y) => h2[x]! - h2[y]! || x - y)
        for (let a = 0; a < same.length; ) {
          let z = a + 1
          while (z < same.length && h2[same[z]!] === h2[same[a]!]) z++
          if (z - a >= 2) {
            bucketKey.push(same[a]! * 16 + b)
            bucketStart.push(members.length)
            for (let k = a; k < z; k++) members.push(same[k]!)
          }
          a = z
        }
      }
    )
    free(byFirst)
  }
  for (const array of [h1, h2, hashed1, hashed2]) free(array)
  const bucketCount = bucketKey.length
  bucketStart.push(members.length)
  // Buckets by key: (first member, band), unique, since a product is in one bucket of a band.
  const buckets = orderBy(bucketCount, (k) => bucketKey.at(k))
  const shared = (a: Int32Array, b: Int32Array) => {
    let i = 0
    let j = 0
    let count = 0
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) {
        count++
        i++
        j++
      } else if (a[i]! < b[j]!) i++
      else j++
    }
    return count
  }
  const clusters = new UnionFind(window.products.length)
  const clustered = new Set<number>()
  // A pair in two buckets is compared twice (rarely): a set of the pairs seen would take more memory than
  // that saves, and a union already made changes nothing.
  for (let k = 0; k < bucketCount; k++) {
    const bucket = buckets[k]!
    const first = bucketStart.at(bucket)
    const length = bucketStart.at(bucket + 1) - first
    if (length > MAX_BAND_BUCKET) continue
    for (let x = 0; x < length; x++) {
      for (let y = x + 1; y < length; y++) {
        // Members are places in `products`, ascending: p < q.
        const [mx, my] = [members.at(first + x), members.at(first + y)]
        const a = listOf(mx)
        const b = listOf(my)
        const common = shared(a, b)
        // Half of the larger's voters, not the smaller's: a ring's targets share most of their voters, while a popular
        // product its members also voted (camouflage) shares a few of its many, and joined to the cluster it brought its
        // heavy benign voters into the core (a target too popular for this joins the group by expansion: its members' votes).
        if (common >= settings.minMembers && common >= settings.density * Math.max(a.length, b.length)) {
          const [p, q] = [products.at(mx), products.at(my)]
          clusters.union(p, q)
          clustered.add(p)
          clustered.add(q)
        }
      }
    }
  }
  free(buckets)
  free(copies)
  for (const column of [bucketKey, bucketStart, members, products, from, size]) column.release()
  const cellsOf = new Map<number, Array<number>>()
  for (const p of [...clustered].sort((a, b) => a - b)) {
    const root = clusters.find(p)
    for (let i = window.starts[p]!; i < window.starts[p + 1]!; i++) {
      if (window.cleared[i] !== 0) continue
      const list = cellsOf.get(root)
      if (list === undefined) cellsOf.set(root, [i])
      else list.push(i)
    }
  }
  return [...cellsOf.keys()]
    .sort((a, b) => a - b)
    .flatMap((root) => {
      const found = core(window, cellsOf.get(root)!, "overlap", settings)
      return found === undefined ? [] : [found]
    })
}

/**
 * A group's other targets: products its members voted on that neither method saw (too popular for a
 * bucket, or missed by the signatures), where at least `density` of its members voted within
 * `expansionSeconds` of the middle of their votes there. Those votes join the group.
 */
export const expand = (
  window: LedgerWindow,
  groups: ReadonlyArray<FoundGroup>,
  settings: LockstepSettings = DEFAULT_LOCKSTEP
): Array<FoundGroup> => {
  if (groups.length === 0) return []
  // The members' votes (that take part), in index order: one scan, kept for the members alone.
  const member = new Uint8Array(window.voters.length)
  for (const group of groups) for (const m of group.members) member[m] = 1
  const votesOf = new Map<number, Array<number>>()
  for (let i = 0; i < window.voter.length; i++) {
    const v = window.voter[i]!
    if (member[v] === 0 || window.cleared[i] !== 0) continue
    const list = votesOf.get(v)
    if (list === undefined) votesOf.set(v, [i])
    else list.push(i)
  }
  return groups.map((group) => {
    const targets = new Set(group.products)
    const elsewhere = new Map<number, Array<number>>()
    for (const member of group.members) {
      for (const i of votesOf.get(member) ?? []) {
        const p = productOf(window, i)
        if (targets.has(p)) continue
        const list = elsewhere.get(p)
        if (list === undefined) elsewhere.set(p, [i])
        else list.push(i)
      }
    }
    const floor = settings.density * group.members.length
    const added: Array<number> = []
    const products: Array<number> = []
    for (const [p, list] of [...elsewhere].sort((a, b) => a[0] - b[0])) {
      if (list.length < floor) continue
      const times = list.map((i) => window.seconds[i]!).sort((a, b) => a - b)
      const middle = times[Math.floor((times.length - 1) / 2)]!
      const near = list.filter((i) => Math.abs(window.seconds[i]! - middle) <= settings.expansionSeconds)
      if (near.length < floor) continue
      added.push(...near)
      products.push(p)
    }
    if (added.length === 0) return group
    return {
      ...group,
      votes: [...group.votes, ...added].sort((a, b) => a - b),
      products: [...group.products, ...products].sort((a, b) => a - b)
    }
  })
}
