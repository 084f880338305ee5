/**
 * Whether a load may be kept: the change feed's view of time. Every change moves an epoch; a product
 * remembers the epoch of its last change while loads are in flight; a flush (changes may have been
 * missed) makes every load that started before it stale. A load that started at epoch `e` may stand
 * for its product now when nothing that product went through since `e` could be missing from it.
 * No Effect, no clock: epochs count changes, not time.
 */
import type { ProductChange, ProductId } from "@productdir/domain"

export class Freshness {
  #epoch = 0
  #lastFlush = 0
  readonly #changedAt = new Map<ProductId, number>()
  #inFlight = 0

  /** A load begins: its epoch, to ask `isCurrent` with when it ends. */
  begin(): number {
    this.#inFlight++
    return this.#epoch
  }

  /** A load ended (kept or not): what was remembered for loads in flight can go once none is left. */
  end(): void {
    this.#inFlight--
    if (this.#inFlight === 0) this.#changedAt.clear()
  }

  /** Whether a load that began at `started` can stand for `productId` now; unknown product: no change at all since. */
  isCurrent(started: number, productId: ProductId | undefined): boolean {
    if (this.#lastFlush > started) return false
    return productId === undefined ? this.#epoch === started : (this.#changedAt.get(productId) ?? 0) <= started
  }

  /** The feed told of `change`. */
  record(change: ProductChange): void {
    this.#epoch++
    if (change._tag === "Everything") {
      this.#lastFlush = this.#epoch
      return
    }
    if (this.#inFlight > 0) for (const id of change.ids) this.#changedAt.set(id, this.#epoch)
  }
}
