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
 * products voted on by at least `density` of its members, peeled in turn until nothing changes;
 * groups smaller than `minMembers` voters or `minProducts` products are not groups. Deterministic: the
 * same window gives the same groups, in the same order.
 */
import type { LedgerWindow } from "@productdir/domain"
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
  density: 0.5,
  minVotesForOverlap: 10,
  expansionSeconds: 302_400
}

/** A group found: its votes (indices into the window), members and products (indices too). */
export interface FoundGroup {
  readonly method: "lockstep" | "overlap"
  readonly votes: ReadonlyArray<number>
  readonly members: ReadonlyArray<number>
  readonly products: ReadonlyArray<number>
}

/** Which votes take part: not cleared by an operator. */
const taking = (window: LedgerWindow): Int32Array => {
  const kept: Array<number> = []
  for (let i = 0; i < window.product.length; i++) if (window.cleared[i] === 0) kept.push(i)
  return Int32Array.from(kept)
}

/**
 * The dense core of candidate votes `cells` (vote indices): members and products peeled in turn
 * until each member has voted on `density` of the products (and at least `minShared`) and each
 * product has `density` of the members. Undefined when what is left is no group.
 */
const core = (window: LedgerWindow, cells: ReadonlyArray<number>, method: FoundGroup["method"], settings: LockstepSettings) => {
  let votes = [...cells]
  for (;;) {
    const products = new Map<number, number>()
    const members = new Map<number, number>()
    for (const i of votes) {
      products.set(window.product[i]!, (products.get(window.product[i]!) ?? 0) + 1)
      members.set(window.voter[i]!, (members.get(window.voter[i]!) ?? 0) + 1)
    }
    const memberFloor = Math.max(settings.minShared, settings.density * products.size)
    const keptMembers = votes.filter((i) => members.get(window.voter[i]!)! >= memberFloor)
    // Members first, then products: peeling both at once empties cores that a turn each keeps.
    const after = new Map<number, number>()
    const remaining = new Set<number>()
    for (const i of keptMembers) {
      after.set(window.product[i]!, (after.get(window.product[i]!) ?? 0) + 1)
      remaining.add(window.voter[i]!)
    }
    const productFloor = settings.density * remaining.size
    const kept = keptMembers.filter((i) => after.get(window.product[i]!)! >= productFloor)
    if (kept.length === votes.length) break
    votes = kept
  }
  const members = [...new Set(votes.map((i) => window.voter[i]!))].sort((a, b) => a - b)
  const products = [...new Set(votes.map((i) => window.product[i]!))].sort((a, b) => a - b)
  if (members.length < settings.minMembers || products.length < settings.minProducts) return undefined
  return { method, votes: votes.sort((a, b) => a - b), members, products } satisfies FoundGroup
}

/** Voters paired by sharing hour buckets on at least `minShared` products, in components; each component's votes in shared buckets. */
export const findLockstep = (window: LedgerWindow, settings: LockstepSettings = DEFAULT_LOCKSTEP): ReadonlyArray<FoundGroup> => {
  const votes = taking(window)
  const n = votes.length
  let latest = 0
  for (const i of votes) latest = Math.max(latest, window.seconds[i]!)
  const hours = Math.floor(latest / settings.bucketSeconds) + 2
  const half = settings.bucketSeconds / 2
  const windowOf = (grid: number, i: number) => Math.floor((window.seconds[i]! + grid * half) / settings.bucketSeconds)
  const grids = [0, 1].map((grid) => {
    const keyOf = (k: number) => window.product[votes[k]!]! * hours + windowOf(grid, votes[k]!)
    return { grid, keyOf, order: orderBy(n, keyOf) }
  })

  // Pairs: a key per shared bucket. A pair on grid 1 counts only where grid 0 split it, so each product counts once.
  const pairs = new Doubles()
  for (const { grid, keyOf, order } of grids) {
    forEachRun(order, keyOf, (start, end) => {
      if (end - start < 2 || end - start > settings.maxBucket) return
      for (let a = start; a < end; a++) {
        const va = votes[order[a]!]!
        for (let b = a + 1; b < end; b++) {
          const vb = votes[order[b]!]!
          if (grid === 1 && windowOf(0, va) === windowOf(0, vb)) continue
          const [lo, hi] =
            window.voter[va]! < window.voter[vb]! ? [window.voter[va]!, window.voter[vb]!] : [window.voter[vb]!, window.voter[va]!]
          if (lo !== hi) pairs.push(lo * 2 ** 24 + hi)
        }
      }
    })
  }
  const sets = new UnionFind(window.voters.length)
  const paired = new Set<number>()
  const sorted = pairs.sorted()
  for (let k = 0; k < sorted.length; ) {
    let end = k + 1
    while (end < sorted.length && sorted[end] === sorted[k]) end++
    if (end - k >= settings.minShared) {
      const lo = Math.floor(sorted[k]! / 2 ** 24)
      const hi = sorted[k]! % 2 ** 24
      sets.union(lo, hi)
      paired.add(lo)
      paired.add(hi)
    }
    k = end
  }

  // Cells: a member's votes in buckets that hold at least three members of its component.
  const component = new Map<number, number>()
  for (const voter of paired) if (sets.sizeOf(voter) >= settings.minMembers) component.set(voter, sets.find(voter))
  const cells = new Map<number, Set<number>>()
  for (const { keyOf, order } of grids) {
    forEachRun(order, keyOf, (start, end) => {
      if (end - start < 3 || end - start > settings.maxBucket) return
      const byComponent = new Map<number, Array<number>>()
      for (let k = start; k < end; k++) {
        const i = votes[order[k]!]!
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

/** A 32-bit mix (murmur3's finalizer) of a voter id under one of the signature's seeds. */
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
export const findOverlap = (window: LedgerWindow, settings: LockstepSettings = DEFAULT_LOCKSTEP): ReadonlyArray<FoundGroup> => {
  const votes = taking(window)
  const productOf = (k: number) => window.product[votes[k]!]!
  // The voters of each product with enough votes, sorted.
  const order = orderBy(votes.length, productOf)
  const voterLists = new Map<number, Int32Array>()
  forEachRun(order, productOf, (start, end) => {
    if (end - start < settings.minVotesForOverlap) return
    const list = new Int32Array(end - start)
    for (let k = start; k < end; k++) list[k - start] = window.voter[votes[order[k]!]!]!
    list.sort()
    voterLists.set(window.product[votes[order[start]!]!]!, list)
  })
  const products = [...voterLists.keys()].sort((a, b) => a - b)
  // MinHash signatures, banded: products sharing a band are candidates.
  const bandKeys = new Map<string, Array<number>>()
  for (const p of products) {
    const list = voterLists.get(p)!
    const signature = SEEDS.map((seed) => {
      let min = 0xffffffff
      for (const v of list) {
        const h = mix(v, seed)
        if (h < min) min = h
      }
      return min
    })
    for (let b = 0; b < SIGNATURE / BAND; b++) {
      const key = `${b}:${signature.slice(b * BAND, b * BAND + BAND).join(":")}`
      const bucket = bandKeys.get(key)
      if (bucket === undefined) bandKeys.set(key, [p])
      else bucket.push(p)
    }
  }
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
  const seen = new Set<string>()
  for (const bucket of bandKeys.values()) {
    if (bucket.length < 2 || bucket.length > MAX_BAND_BUCKET) continue
    for (let x = 0; x < bucket.length; x++) {
      for (let y = x + 1; y < bucket.length; y++) {
        const [p, q] = bucket[x]! < bucket[y]! ? [bucket[x]!, bucket[y]!] : [bucket[y]!, bucket[x]!]
        const pair = `${p}:${q}`
        if (seen.has(pair)) continue
        seen.add(pair)
        const a = voterLists.get(p)!
        const b = voterLists.get(q)!
        const common = shared(a, b)
        if (common >= settings.minMembers && common >= settings.density * Math.min(a.length, b.length)) {
          clusters.union(p, q)
          clustered.add(p)
          clustered.add(q)
        }
      }
    }
  }
  const cellsOf = new Map<number, Array<number>>()
  for (const i of votes) {
    const p = window.product[i]!
    if (!clustered.has(p)) continue
    const root = clusters.find(p)
    const list = cellsOf.get(root)
    if (list === undefined) cellsOf.set(root, [i])
    else list.push(i)
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
  const votes = taking(window)
  const voterOf = (k: number) => window.voter[votes[k]!]!
  const order = orderBy(votes.length, voterOf)
  const votesOf = new Map<number, Array<number>>()
  forEachRun(order, voterOf, (start, end) => {
    const list: Array<number> = []
    for (let k = start; k < end; k++) list.push(votes[order[k]!]!)
    votesOf.set(voterOf(order[start]!), list)
  })
  return groups.map((group) => {
    const targets = new Set(group.products)
    const elsewhere = new Map<number, Array<number>>()
    for (const member of group.members) {
      for (const i of votesOf.get(member) ?? []) {
        const p = window.product[i]!
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
