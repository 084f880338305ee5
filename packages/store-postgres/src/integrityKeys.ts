/**
 * The hash tables the integrity window's read numbers its keys in (windowOfRecentVotes.ts): ten million
 * votes are thirty million lookups, so the tables are typed arrays (open addressing, linear probing,
 * half full at most), not maps of strings, and a key is numbered in the order it is first seen.
 */
import { free, grown } from "@productdir/columns"
import { readOnlyArray } from "@productdir/domain"

/** A 16-byte key's hash, from its four 32-bit words. */
const mix16 = (a: number, b: number, c: number, d: number): number => {
  const h = Math.imul(a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca6b) ^ Math.imul(d, 0xc2b2ae35), 0x27d4eb2f)
  return h ^ (h >>> 15)
}

/** The hash of the 16-byte key in `view` at `at`. */
export const hash16 = (view: DataView, at: number): number =>
  mix16(view.getInt32(at), view.getInt32(at + 4), view.getInt32(at + 8), view.getInt32(at + 12))

/**
 * Distinct 16-byte keys, numbered in the order first seen: open addressing over typed arrays (a
 * million keys in 24 MB; a Map of strings would take five times that, and a string for every vote).
 */
export class Keys16 {
  words = new Int32Array(4 * 1024)
  slots = new Int32Array(2048).fill(-1)
  count = 0

  /** What warm read, kept so that its reads are not optimized away. */
  #warmed = 0

  /**
   * Reads the memory the lookup of the key of hash16 `hash` will read: its first slot and that slot's key. A
   * batch's reads, made first and independent of each other, wait for memory together, and the lookups that
   * follow find the lines in cache; one lookup at a time waited for its own two misses in turn.
   */
  warm(hash: number): void {
    const slot = this.slots[hash & (this.slots.length - 1)]!
    this.#warmed ^= slot < 0 ? slot : this.words[slot * 4]!
  }

  /** The number of the key in `view` at `at` (its hash16 `hash`), added when new. */
  add(view: DataView, at: number, hash: number = hash16(view, at)): number {
    const a = view.getInt32(at)
    const b = view.getInt32(at + 4)
    const c = view.getInt32(at + 8)
    const d = view.getInt32(at + 12)
    const mask = this.slots.length - 1
    let h = hash & mask
    for (;;) {
      const slot = this.slots[h]!
      if (slot === -1) break
      const w = slot * 4
      if (this.words[w] === a && this.words[w + 1] === b && this.words[w + 2] === c && this.words[w + 3] === d) return slot
      h = (h + 1) & mask
    }
    const key = this.count++
    if (this.words.length < this.count * 4) {
      this.words = grown(this.words, this.words.length * 2)
    }
    this.words.set([a, b, c, d], key * 4)
    this.slots[h] = key
    if (this.count * 2 > this.slots.length) this.#grow()
    return key
  }

  #grow() {
    // The keys are rehashed from their words: the old slots go first.
    const size = this.slots.length * 2
    free(this.slots)
    this.slots = new Int32Array(size).fill(-1)
    const mask = this.slots.length - 1
    for (let key = 0; key < this.count; key++) {
      const w = key * 4
      let h = mix16(this.words[w]!, this.words[w + 1]!, this.words[w + 2]!, this.words[w + 3]!) & mask
      while (this.slots[h] !== -1) h = (h + 1) & mask
      this.slots[h] = key
    }
  }

  /**
   * Keys in ascending order of their bytes (a uuid's order); `order[n]` is the key numbered n. Ends the adding:
   * the table's slots go first (8 MB at a million keys, at the window read's peak). By each key's first word and
   * number packed in a double (a native numeric sort in place), then runs of equal first words by the rest: a
   * comparator's sort of a typed array works in two arrays of JS values beside it (16 MB more at that peak).
   */
  sorted(): Int32Array {
    free(this.slots)
    this.slots = new Int32Array(0)
    const count = this.count
    const words = this.words
    const rest = (x: number, y: number) => {
      for (let k = 0; k < 4; k++) {
        const a = words[x * 4 + k]! >>> 0
        const b = words[y * 4 + k]! >>> 0
        if (a !== b) return a - b
      }
      return 0
    }
    const order = new Int32Array(count)
    for (let k = 0; k < count; k++) order[k] = k
    // A number and a first word fit a double exactly below 2^21 keys (2^32 × 2^21 = 2^53).
    if (count >= 2 ** 21) return order.sort(rest)
    const packed = new Float64Array(count)
    for (let k = 0; k < count; k++) packed[k] = (words[k * 4]! >>> 0) * 2 ** 21 + k
    packed.sort()
    for (let k = 0; k < count; k++) order[k] = packed[k]! % 2 ** 21
    free(packed)
    for (let a = 0; a < count; ) {
      let z = a + 1
      while (z < count && words[order[z]! * 4] === words[order[a]! * 4]) z++
      if (z - a > 1) order.subarray(a, z).sort(rest)
      a = z
    }
    return order
  }

  /**
   * The keys' 16 bytes each, key `order[n]` n-th (sorted()'s order), in the table's own memory: its keys are moved
   * into that order in place, following the permutation's cycles, then written as their bytes. Ends the table;
   * `order` is left the identity. A copy of the keys beside the table would be 16 MB more at a million keys, at
   * the window read's peak.
   */
  bytesInOrder(order: Int32Array): Uint8Array {
    const words = this.words
    const count = this.count
    for (let k = 0; k < count; k++) {
      if (order[k] === k) continue
      // Key k's place is taken by key order[k], whose place by order[order[k]], … until the cycle comes back to k.
      const a = words[k * 4]!
      const b = words[k * 4 + 1]!
      const c = words[k * 4 + 2]!
      const d = words[k * 4 + 3]!
      for (let place = k; ; ) {
        const from = order[place]!
        order[place] = place
        if (from === k) {
          words.set([a, b, c, d], place * 4)
          break
        }
        words.copyWithin(place * 4, from * 4, from * 4 + 4)
        place = from
      }
    }
    // Each word as its four bytes, most significant first (as read: DataView's order).
    const view = new DataView(words.buffer, words.byteOffset, count * 16)
    for (let w = 0; w < count * 4; w++) view.setInt32(w * 4, words[w]!)
    this.words = new Int32Array(0)
    this.slots = new Int32Array(0)
    return new Uint8Array(words.buffer, words.byteOffset, count * 16)
  }
}

/** The hash of the byte string `bytes[from, to)` (`view` over the same bytes). */
export const hashText = (bytes: Uint8Array, view: DataView, from: number, to: number): number => {
  let h = Math.imul(to - from, 0x9e3779b1)
  let i = from
  for (; i + 4 <= to; i += 4) {
    h = Math.imul(h ^ view.getInt32(i, true), 0x85ebca6b)
    h ^= h >>> 13
  }
  for (; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0xc2b2ae35)
  return h ^ (h >>> 16)
}

/**
 * Distinct byte strings (a voter's or a network's text as PostgreSQL sends it), numbered in the order
 * first seen: their bytes in one buffer, looked up by a hash of them and compared whole. A quarter of a
 * million voters' texts are about 10 MB here, where their strings and the array of them would be 17 MB.
 */
export class KeysText {
  #bytes = new Uint8Array(64 * 1024)
  #view = new DataView(this.#bytes.buffer)
  #used = 0
  /** Where key k's bytes start in `#bytes` (k + 1's start is where they end). */
  #starts = new Int32Array(1024 + 1)
  #hashes = new Int32Array(1024)
  #slots = new Int32Array(2048).fill(-1)
  #warmed = 0
  count = 0

  /** The number of the key in `bytes[from, to)` (`view` over the same bytes), added when new. */
  add(bytes: Uint8Array, view: DataView, from: number, to: number, h: number = hashText(bytes, view, from, to)): number {
    const length = to - from
    const slot = this.#slotOf(view, from, length, h)
    if (this.#slots[slot] !== -1) return this.#slots[slot]!
    const key = this.count++
    if (this.#hashes.length < this.count) {
      this.#hashes = grown(this.#hashes, this.#hashes.length * 2)
      this.#starts = grown(this.#starts, this.#hashes.length + 1)
    }
    if (this.#bytes.length < this.#used + length) {
      this.#bytes = grown(this.#bytes, Math.max(this.#bytes.length * 2, this.#used + length))
      this.#view = new DataView(this.#bytes.buffer)
    }
    this.#bytes.set(bytes.subarray(from, to), this.#used)
    this.#used += length
    this.#starts[key + 1] = this.#used
    this.#hashes[key] = h
    this.#slots[slot] = key
    if (this.count * 2 > this.#slots.length) this.#grow()
    return key
  }

  /** As Keys16.warm: reads what the lookup of the text of hashText `hash` will read first (its slot, that key's hash and first bytes). */
  warm(hash: number): void {
    const key = this.#slots[hash & (this.#slots.length - 1)]!
    this.#warmed ^= key < 0 ? key : this.#hashes[key]! ^ this.#bytes[this.#starts[key]!]!
  }

  /** The number of the key whose text is `text`, or -1 when there is none (before sorted()). */
  find(text: string): number {
    const bytes = Buffer.from(text, "utf8")
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    return this.#slots[this.#slotOf(view, 0, bytes.length, hashText(bytes, view, 0, bytes.length))]!
  }

  /** The slot of the key in `view[from, from + length)` (hashText `h`): the one holding it, else the free one it would take. */
  #slotOf(view: DataView, from: number, length: number, h: number): number {
    const mask = this.#slots.length - 1
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const key = this.#slots[slot]!
      if (key === -1 || (this.#hashes[key] === h && this.#equals(key, view, from, length))) return slot
    }
  }

  /**
   * The keys in the order of their texts as JS compares strings (the memory store's order): `number[key]` is a
   * key's place, and `texts[n]` the n-th text, kept as its bytes and made a string each time it is read. Ends the
   * table. The strings of a quarter of a million voters would be 17 MB of heap (more while sorted), made at the
   * window read's peak, beside these bytes (10 MB), which stand for them.
   */
  sorted(): { readonly number: Int32Array; readonly texts: ReadonlyArray<string> } {
    const count = this.count
    for (const array of [this.#hashes, this.#slots]) free(array)
    this.#hashes = new Int32Array(0)
    this.#slots = new Int32Array(0)
    // The bytes and their starts, cut to what they hold (each grew by doubling).
    const text = Buffer.from(this.#bytes.subarray(0, this.#used))
    const starts = this.#starts.slice(0, count + 1)
    this.#release()
    const order = new Int32Array(count)
    for (let k = 0; k < count; k++) order[k] = k
    order.sort((x, y) => {
      const a = starts[x]!
      const b = starts[y]!
      const length = Math.min(starts[x + 1]! - a, starts[y + 1]! - b)
      for (let i = 0; i < length; i++) {
        const p = text[a + i]!
        const q = text[b + i]!
        if (p === q) continue
        // Bytes order UTF-8 as code points, strings as UTF-16 units: the two differ past U+FFFF, so compare strings there.
        if (p < 0x80 || q < 0x80) return p - q
        const s = text.toString("utf8", a, starts[x + 1])
        const t = text.toString("utf8", b, starts[y + 1])
        return s < t ? -1 : s > t ? 1 : 0
      }
      return starts[x + 1]! - a - (starts[y + 1]! - b)
    })
    const number = new Int32Array(count)
    for (let n = 0; n < count; n++) number[order[n]!] = n
    return { number, texts: readOnlyArray(count, (n) => text.toString("utf8", starts[order[n]!]!, starts[order[n]! + 1]!)) }
  }

  /** Lets the table and the texts' bytes go. */
  #release() {
    for (const array of [this.#bytes, this.#starts, this.#hashes, this.#slots]) free(array)
    this.#bytes = new Uint8Array(0)
    this.#view = new DataView(this.#bytes.buffer)
    this.#starts = new Int32Array(1)
    this.#hashes = new Int32Array(0)
    this.#slots = new Int32Array(0)
    this.count = 0
  }

  #equals(key: number, view: DataView, from: number, length: number): boolean {
    const start = this.#starts[key]!
    if (this.#starts[key + 1]! - start !== length) return false
    const own = this.#view
    let i = 0
    for (; i + 4 <= length; i += 4) if (own.getInt32(start + i) !== view.getInt32(from + i)) return false
    for (; i < length; i++) if (this.#bytes[start + i] !== view.getUint8(from + i)) return false
    return true
  }

  #grow() {
    // The keys are rehashed from their hashes: the old slots go first.
    const size = this.#slots.length * 2
    free(this.#slots)
    this.#slots = new Int32Array(size).fill(-1)
    const mask = this.#slots.length - 1
    for (let key = 0; key < this.count; key++) {
      let slot = this.#hashes[key]! & mask
      while (this.#slots[slot] !== -1) slot = (slot + 1) & mask
      this.#slots[slot] = key
    }
  }
}
