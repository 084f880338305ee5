/**
 * Small tools the integrity pass works with on columns of numbers: a growable array of doubles (pair
 * keys), a union-find, and sorting indices by a 32-bit key (a radix sort: no comparator, so ten
 * million votes sort in well under a second).
 */
import { free, grown } from "@productdir/columns"

/** A Float64Array that grows (integers up to 2^53 too: a pair key, an offset, a place). */
export class Doubles {
  #values = new Float64Array(1024)
  #length = 0

  get length(): number {
    return this.#length
  }

  push(value: number): void {
    if (this.#length === this.#values.length) {
      // By half, not double: a column grown so holds a third of its places empty at most, not half of them, and
      // the copy as it grows holds the old and the new at once (at the pass's peak).
      this.#values = grown(this.#values, Math.max(1024, Math.ceil(this.#values.length * 1.5)))
    }
    this.#values[this.#length++] = value
  }

  /** The value pushed `index`-th. */
  at(index: number): number {
    return this.#values[index]!
  }

  /** Lets the values go (a pass's pairs can be tens of MB). */
  release(): void {
    free(this.#values)
    this.#values = new Float64Array(0)
    this.#length = 0
  }

  /** The values pushed, sorted ascending (a view: valid until the next push). */
  sorted(): Float64Array {
    return this.#values.subarray(0, this.#length).sort()
  }
}

/**
 * Indices 0..n-1 ordered by `keyOf(i)` (then by index), for integer keys in [0, 2^32): a least
 * significant digit radix sort, two passes of 16 bits, stable, so equal keys keep index order. Linear
 * in n, with four arrays of n 32-bit numbers at its peak, and one left: the others are freed at once
 * (ArrayBuffer transfer), not at the next full collection, as a pass that sorts sixteen times would
 * otherwise pile them up.
 */
export const orderBy = (n: number, keyOf: (i: number) => number): Int32Array => {
  const keys = new Uint32Array(n)
  for (let i = 0; i < n; i++) keys[i] = keyOf(i)
  let order = new Int32Array(n)
  for (let i = 0; i < n; i++) order[i] = i
  let spare = new Int32Array(n)
  const counts = new Int32Array(65_537)
  for (const shift of [0, 16]) {
    counts.fill(0)
    for (let i = 0; i < n; i++) counts[((keys[i]! >>> shift) & 0xffff) + 1]!++
    for (let d = 1; d <= 65_536; d++) counts[d]! += counts[d - 1]!
    for (let k = 0; k < n; k++) {
      const i = order[k]!
      spare[counts[(keys[i]! >>> shift) & 0xffff]!++] = i
    }
    ;[order, spare] = [spare, order]
  }
  free(keys)
  free(spare)
  return order
}

/** Runs of equal keys over an order: calls `run(start, end)` for each [start, end) of `order`. */
export const forEachRun = (order: Int32Array, keyOf: (i: number) => number, run: (start: number, end: number) => void): void => {
  let start = 0
  for (let k = 1; k <= order.length; k++) {
    if (k === order.length || keyOf(order[k]!) !== keyOf(order[start]!)) {
      run(start, k)
      start = k
    }
  }
}

/** Disjoint sets over 0..n-1, by size, with path halving. */
export class UnionFind {
  readonly #parent: Int32Array
  readonly #size: Int32Array

  constructor(n: number) {
    this.#parent = new Int32Array(n)
    this.#size = new Int32Array(n).fill(1)
    for (let i = 0; i < n; i++) this.#parent[i] = i
  }

  find(x: number): number {
    let node = x
    while (this.#parent[node] !== node) {
      this.#parent[node] = this.#parent[this.#parent[node]!]!
      node = this.#parent[node]!
    }
    return node
  }

  union(a: number, b: number): void {
    let ra = this.find(a)
    let rb = this.find(b)
    if (ra === rb) return
    if (this.#size[ra]! < this.#size[rb]!) [ra, rb] = [rb, ra]
    this.#parent[rb] = ra
    this.#size[ra] = this.#size[ra]! + this.#size[rb]!
  }

  sizeOf(x: number): number {
    return this.#size[this.find(x)]!
  }
}
