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
}

export class ByteBudgetLru<V> {
  readonly budget: number
  #bytes = 0
  #evictions = 0
  // A Map iterates in insertion order, and a hit re-inserts: the first key is the least recently used.
  readonly #entries = new Map<string, Entry<V>>()
  readonly #byProduct = new Map<ProductId, Set<string>>()

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
    this.#entries.delete(entry.key)
    this.#entries.set(entry.key, entry)
    return entry.value
  }

  /** Holds `value` (of `size` bytes) under `key`, evicting the least recently used past the budget; one larger than the whole budget is not held. */
  set(key: string, productId: ProductId, value: V, size: number): void {
    if (size > this.budget) return
    this.delete(key)
    this.#entries.set(key, { key, productId, value, size })
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
    this.#bytes = 0
  }

  /** The value under `key` without touching its recency (for sizes and tests). */
  peek(key: string): V | undefined {
    return this.#entries.get(key)?.value
  }

  #evict(): void {
    while (this.#bytes > this.budget) {
      const oldest = this.#entries.keys().next()
      if (oldest.done === true) break
      this.delete(oldest.value)
      this.#evictions++
    }
  }
}
