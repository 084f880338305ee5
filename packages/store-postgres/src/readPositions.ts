/**
 * How far a replica must have replayed before it may answer a read (ReadReplicas.ts): the change
 * feed's knowledge, as WAL positions of the primary. Each poll of the feed takes the primary's WAL
 * insert position in the same statement that finds the changed products: every change it finds was
 * committed before that position, so a replica that has replayed that far has it.
 *
 * - A product read needs the position of the last change the feed told of that product (by id, or
 *   by slug: a slug never changes, so the feed and the reads teach which id it names). Positions at
 *   or below what the most advanced replica has replayed are forgotten into one `floor`, so the map
 *   holds only the changes replicas have not caught up with yet.
 * - A change this process made is told at once, before any poll has seen it: its product is read
 *   from the primary until the next poll that began after it gives it a position (read your writes).
 * - A list or a search is not kept by any cache, so it may lag a little: it needs what the feed
 *   told at least LIST_GRACE_MS ago. The feed tells within a poll (250 ms) of the commit, so a change
 *   is in every list within about half a second wherever the list is read.
 *
 * No Effect, no clock: the caller passes the time, in milliseconds.
 */

/** A list or a search may lag behind what the feed told by this much (its change is still seen within a second). */
export const LIST_GRACE_MS = 250

/** More products than this waiting for the replicas: the floor moves to the latest position (all of them at once). */
const MAX_TRACKED = 100_000

/** What a read needs: a replica that has replayed this far, or the primary. */
export type Needed = bigint | "primary"

export class ReadPositions {
  /** Until the feed's first poll placed everything, every read needs the primary. */
  #started = false
  /** Every change not in `#byProduct` was at or below this position. */
  #floor = 0n
  /** The highest position any change was given. */
  #latest = 0n
  readonly #byProduct = new Map<string, bigint>()
  /** slug -> id, learnt from the feed and from reads; a slug never moves to another product. */
  readonly #slugs = new Map<string, string>()
  /** Changes this process announced, waiting for a poll to give them a position: id -> (sequence, time). */
  readonly #pending = new Map<string, { readonly seq: number; readonly at: number }>()
  #seq = 0
  /** What lists need: the latest position given at least LIST_GRACE_MS ago, and the positions given since. */
  #settled = 0n
  readonly #recent: Array<{ readonly at: number; readonly position: bigint }> = []

  /** Changes this process made, at `now`: read from the primary until a poll has placed them. */
  announced(ids: ReadonlyArray<string>, now: number): void {
    for (const id of ids) this.#pending.set(id, { seq: ++this.#seq, at: now })
  }

  /** A poll is about to be sent: the mark to hand `polled`, after it answers. */
  pollStarting(): number {
    return this.#seq
  }

  /**
   * A poll that began at `mark` answered: the primary's WAL position, the products it saw change (new to
   * the feed) and every product it saw with its slug (to learn slugs).
   */
  polled(
    mark: number,
    position: bigint,
    changed: ReadonlyArray<string>,
    seen: ReadonlyArray<{ readonly id: string; readonly slug: string }>,
    now: number
  ): void {
    for (const { id, slug } of seen) this.learn(id, slug)
    let placed = false
    for (const id of changed) {
      this.#byProduct.set(id, position)
      placed = true
    }
    for (const [id, pending] of this.#pending) {
      if (pending.seq > mark) continue
      this.#pending.delete(id)
      this.#byProduct.set(id, position)
      placed = true
    }
    if (placed) {
      if (position > this.#latest) this.#latest = position
      this.#recent.push({ at: now, position })
    }
    if (this.#byProduct.size > MAX_TRACKED) this.#forgetAll()
  }

  /**
   * The feed starts over at `position` (its first poll, or after it lost track: changes may have been
   * missed): whatever changed before is at or below it.
   */
  startOver(mark: number, position: bigint, now: number): void {
    for (const [id, pending] of this.#pending) if (pending.seq <= mark) this.#pending.delete(id)
    if (position > this.#latest) this.#latest = position
    this.#forgetAll()
    this.#settled = this.#latest
    this.#recent.length = 0
    this.#recent.push({ at: now, position })
    this.#started = true
  }

  /** `slug` names product `id`. */
  learn(id: string, slug: string): void {
    if (this.#slugs.get(slug) === id) return
    if (this.#slugs.size >= MAX_TRACKED) this.#slugs.clear()
    this.#slugs.set(slug, id)
  }

  /** What a read of one product needs: `ref` is its id (canonical, lowercase) or its slug. */
  forProduct(ref: string, isId: boolean): Needed {
    if (!this.#started) return "primary"
    const id = isId ? ref : this.#slugs.get(ref)
    // A slug not learnt yet may name a product changed here and not placed yet.
    if (id === undefined) return this.#pending.size > 0 ? "primary" : this.#floor
    if (this.#pending.has(id)) return "primary"
    return this.#byProduct.get(id) ?? this.#floor
  }

  /** What a read of many products (a list, a search, the categories) needs at `now`. */
  forAny(now: number): Needed {
    if (!this.#started) return "primary"
    const settledBefore = now - LIST_GRACE_MS
    for (const pending of this.#pending.values()) if (pending.at <= settledBefore) return "primary"
    while (this.#recent.length > 0 && this.#recent[0]!.at <= settledBefore) {
      const { position } = this.#recent.shift()!
      if (position > this.#settled) this.#settled = position
    }
    return this.#settled
  }

  /** A replica has replayed to `position`: changes at or below it need no tracking any more. */
  replayed(position: bigint): void {
    if (position <= this.#floor) return
    for (const [id, at] of this.#byProduct) if (at <= position) this.#byProduct.delete(id)
    this.#floor = position
  }

  /** Products waiting for a replica (for the figures). */
  tracked(): number {
    return this.#byProduct.size
  }

  #forgetAll(): void {
    this.#byProduct.clear()
    if (this.#latest > this.#floor) this.#floor = this.#latest
  }
}
