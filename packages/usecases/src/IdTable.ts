/**
 * Whole product ids, each with the position (line or index) of the first record
 * that carried it, in bounded memory: the import's duplicate check and the set
 * `--prune` keeps. Ids are 128-bit values in an open-addressing hash table over
 * typed arrays, 20 bytes a slot at load ≤ 0.5: a million ids take about 40 MB,
 * where a Map of id strings would take several times that, and no two distinct
 * ids are ever confused (UUIDv7 ids made in the same millisecond share their
 * first 12 hex digits).
 */

const WORDS = 4

/** The id's four 32-bit words; ids are canonical lowercase UUIDs (8-4-4-4-12). */
const wordsOf = (id: string, into: Uint32Array): void => {
  into[0] = parseInt(id.slice(0, 8), 16)
  into[1] = parseInt(id.slice(9, 13) + id.slice(14, 18), 16)
  into[2] = parseInt(id.slice(19, 23) + id.slice(24, 28), 16)
  into[3] = parseInt(id.slice(28, 36), 16)
}

/** Murmur3's finaliser: every input bit moves every output bit. */
const mix = (h: number): number => {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

const hashOf = (w: Uint32Array): number => mix(w[0]! ^ mix(w[1]! ^ mix(w[2]! ^ mix(w[3]!))))

export class IdTable {
  private capacity: number
  private words: Uint32Array
  /** Position + 1; 0 marks an empty slot. */
  private positions: Uint32Array
  private count = 0
  private readonly scratch = new Uint32Array(WORDS)

  constructor(initialCapacity = 1024) {
    this.capacity = 2 ** Math.ceil(Math.log2(Math.max(16, initialCapacity)))
    this.words = new Uint32Array(this.capacity * WORDS)
    this.positions = new Uint32Array(this.capacity)
  }

  get size(): number {
    return this.count
  }

  /** Bytes held by the table. */
  get bytes(): number {
    return this.words.byteLength + this.positions.byteLength
  }

  /** The position stored for `id`, if any. */
  get(id: string): number | undefined {
    wordsOf(id, this.scratch)
    const slot = this.find(this.scratch)
    const stored = this.positions[slot]!
    return stored === 0 ? undefined : stored - 1
  }

  has(id: string): boolean {
    return this.get(id) !== undefined
  }

  /** Stores `position` for `id` unless the id is already there; returns the position it has. */
  setIfAbsent(id: string, position: number): number {
    wordsOf(id, this.scratch)
    let slot = this.find(this.scratch)
    if (this.positions[slot] !== 0) return this.positions[slot]! - 1
    if ((this.count + 1) * 2 > this.capacity) {
      this.grow()
      slot = this.find(this.scratch)
    }
    this.words.set(this.scratch, slot * WORDS)
    this.positions[slot] = position + 1
    this.count++
    return position
  }

  /** The slot holding `w`, or the empty slot where it would go (linear probing). */
  private find(w: Uint32Array): number {
    const mask = this.capacity - 1
    for (let slot = hashOf(w) & mask; ; slot = (slot + 1) & mask) {
      if (this.positions[slot] === 0) return slot
      const at = slot * WORDS
      if (this.words[at] === w[0] && this.words[at + 1] === w[1] && this.words[at + 2] === w[2] && this.words[at + 3] === w[3]) return slot
    }
  }

  private grow(): void {
    const words = this.words
    const positions = this.positions
    this.capacity *= 2
    this.words = new Uint32Array(this.capacity * WORDS)
    this.positions = new Uint32Array(this.capacity)
    const w = new Uint32Array(WORDS)
    for (let old = 0; old < positions.length; old++) {
      if (positions[old] === 0) continue
      w.set(words.subarray(old * WORDS, old * WORDS + WORDS))
      const slot = this.find(w)
      this.words.set(w, slot * WORDS)
      this.positions[slot] = positions[old]!
    }
  }
}
