/**
 * The read cache's store of entries: least recently used first out, bounded by bytes (each entry's
 * own size, its bookkeeping included), with the keys of each product at hand so a change of one
 * product drops its entries alone. No Effect, no clock: a data structure, tested as one.
 */
import type { ProductId } from "@productdir/domain"

interface Entry<V> {
  /** The key as first stored: the one string the maps share. */
  readonly key: string
  readonly productId: ProductId
  readonly value: V
  size: number
  /** Neighbours in recency order (toward the least and the most recently used). */
  older: Entry<V> | undefined
  newer: Entry<V> | undefined
}

export class ByteBudgetLru<V> {
  readonly budget: number
  #bytes = 0
  #evictions = 0
  readonly #entries = new Map<string, Entry<V>>()
  readonly #byProduct = new Map<ProductId, Set<string>>()
  // Recency is a list threaded through the entries, not the Map's order: a hit moves an entry with
  // four pointer writes, where deleting and re-inserting it in a Map of tens of thousands of keys
  // hashed the key twice and grew the table until a rehash (a read cache's every hit does it).
  #oldest: Entry<V> | undefined
  #newest: Entry<V> | undefined

  constructor(budget: number) {
    this.budget = budget
  }

  get size(): number {
    return this.#entries.size
  }

  get bytes(): number {
    return this.#bytes
  }

  get evictions(): number {
    return this.#evictions
  }

  /** The value under `key`, now the most recently used; undefined when it is not held. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry !== this.#newest) {
      this.#unlink(entry)
      this.#append(entry)
    }
    return entry.value
  }

  /** Holds `value` (of `size` bytes) under `key`, evicting the least recently used past the budget; one larger than the whole budget is not held. */
  set(key: string, productId: ProductId, value: V, size: number): void {
    if (size > this.budget) return
    this.delete(key)
    const entry: Entry<V> = { key, productId, value, size, older: undefined, newer: undefined }
    this.#entries.set(key, entry)
    this.#append(entry)
    let keys = this.#byProduct.get(productId)
    if (keys === undefined) {
      keys = new Set()
      this.#byProduct.set(productId, keys)
    }
    keys.add(key)
    this.#bytes += size
    this.#evict()
  }

  /** The entry under `key` has grown or shrunk to `size` bytes (a coding was added to it). */
  resize(key: string, size: number): void {
    const entry = this.#entries.get(key)
    if (entry === undefined || entry.size === size) return
    this.#bytes += size - entry.size
    entry.size = size
    this.#evict()
  }

  delete(key: string): void {
    const entry = this.#entries.get(key)
    if (entry === undefined) return
    this.#entries.delete(key)
    this.#unlink(entry)
    this.#bytes -= entry.size
    const keys = this.#byProduct.get(entry.productId)
    keys?.delete(entry.key)
    if (keys?.size === 0) this.#byProduct.delete(entry.productId)
  }

  /** Drops every entry of `productId`; answers their keys. */
  deleteProduct(productId: ProductId): ReadonlyArray<string> {
    const keys = [...(this.#byProduct.get(productId) ?? [])]
    for (const key of keys) this.delete(key)
    return keys
  }

  clear(): void {
    this.#entries.clear()
    this.#byProduct.clear()
    this.#oldest = undefined
    this.#newest = undefined
    this.#bytes = 0
  }

  /** The value under `key` without touching its recency (for sizes and tests). */
  peek(key: string): V | undefined {
    return this.#entries.get(key)?.value
  }

  #append(entry: Entry<V>): void {
    entry.older = this.#newest
    entry.newer = undefined
    if (this.#newest === undefined) this.#oldest = entry
    else this.#newest.newer = entry
    this.#newest = entry
  }

  #unlink(entry: Entry<V>): void {
    if (entry.older === undefined) this.#oldest = entry.newer
    else entry.older.newer = entry.newer
    if (entry.newer === undefined) this.#newest = entry.older
    else entry.newer.older = entry.older
    entry.older = undefined
    entry.newer = undefined
  }

  #evict(): void {
    while (this.#bytes > this.budget) {
      const oldest = this.#oldest
      if (oldest === undefined) break
      this.delete(oldest.key)
      this.#evictions++
    }
  }
}
