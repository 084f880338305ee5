/**
 * What a read needs of a replica (readPositions.ts), step by step: nothing before the feed's first
 * poll; the position of a product's last change, by id or slug; this process's own changes on the
 * primary until a poll that began after them; lists a grace period behind; what every replica has
 * forgotten into the floor.
 */
import { describe, expect, it } from "@effect/vitest"
import { LIST_GRACE_MS, ReadPositions } from "../src/readPositions.ts"

const A = "0b7f0000-0000-4000-8000-00000000000a"
const B = "0b7f0000-0000-4000-8000-00000000000b"

const started = (at = 1_000) => {
  const positions = new ReadPositions()
  positions.startOver(positions.pollStarting(), 100n, at)
  return positions
}

describe("ReadPositions", () => {
  it("sends every read to the primary until the feed's first poll placed what came before", () => {
    const positions = new ReadPositions()
    expect(positions.forProduct(A, true)).toBe("primary")
    expect(positions.forAny(5_000)).toBe("primary")
    positions.startOver(positions.pollStarting(), 100n, 5_000)
    expect(positions.forProduct(A, true)).toBe(100n)
    expect(positions.forAny(5_000)).toBe(100n)
  })

  it("a product another process changed needs the position of the poll that saw it, by id and by slug", () => {
    const positions = started()
    positions.polled(positions.pollStarting(), 250n, [A], [{ id: A, slug: "alpha" }], 1_100)
    expect(positions.forProduct(A, true)).toBe(250n)
    expect(positions.forProduct("alpha", false)).toBe(250n)
    // Another product still needs only the floor.
    expect(positions.forProduct(B, true)).toBe(100n)
  })

  it("a change made here is read on the primary until a poll that began after it places it", () => {
    const positions = started()
    positions.learn(A, "alpha")
    const early = positions.pollStarting()
    positions.announced([A], 1_100)
    expect(positions.forProduct(A, true)).toBe("primary")
    expect(positions.forProduct("alpha", false)).toBe("primary")
    // A slug not learnt yet may be that product: primary too, while anything waits.
    expect(positions.forProduct("unknown-slug", false)).toBe("primary")
    // The poll was sent before the change committed: its position may be before the change.
    positions.polled(early, 200n, [], [], 1_150)
    expect(positions.forProduct(A, true)).toBe("primary")
    positions.polled(positions.pollStarting(), 300n, [], [], 1_400)
    expect(positions.forProduct(A, true)).toBe(300n)
    expect(positions.forProduct("alpha", false)).toBe(300n)
    expect(positions.forProduct("unknown-slug", false)).toBe(100n)
  })

  it("a list needs what the feed told at least the grace period ago", () => {
    const positions = started(1_000)
    positions.polled(positions.pollStarting(), 250n, [A], [], 2_000)
    expect(positions.forAny(2_000)).toBe(100n)
    expect(positions.forAny(2_000 + LIST_GRACE_MS - 1)).toBe(100n)
    expect(positions.forAny(2_000 + LIST_GRACE_MS)).toBe(250n)
    // A change made here and not placed within the grace period: the primary.
    positions.announced([B], 3_000)
    expect(positions.forAny(3_000 + LIST_GRACE_MS - 1)).toBe(250n)
    expect(positions.forAny(3_000 + LIST_GRACE_MS)).toBe("primary")
  })

  it("what every replica has replayed is forgotten into the floor, which then stands for it", () => {
    const positions = started()
    positions.polled(positions.pollStarting(), 250n, [A], [], 1_100)
    positions.polled(positions.pollStarting(), 400n, [B], [], 1_200)
    expect(positions.tracked()).toBe(2)
    positions.replayed(300n)
    expect(positions.tracked()).toBe(1)
    // A's change is at or below the floor now: any product not tracked needs the floor.
    expect(positions.forProduct(A, true)).toBe(300n)
    expect(positions.forProduct(B, true)).toBe(400n)
    // The floor never goes back.
    positions.replayed(200n)
    expect(positions.forProduct(A, true)).toBe(300n)
  })

  it("starting over (changes may have been missed) needs the new position for everything", () => {
    const positions = started()
    positions.polled(positions.pollStarting(), 250n, [A], [], 1_100)
    positions.startOver(positions.pollStarting(), 900n, 1_200)
    expect(positions.forProduct(A, true)).toBe(900n)
    expect(positions.forProduct(B, true)).toBe(900n)
    expect(positions.forAny(1_200)).toBe(900n)
  })
})
