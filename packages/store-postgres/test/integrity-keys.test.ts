/**
 * The integrity window's key tables (src/integrityKeys.ts) against a Map: every key gets the number of
 * its first sighting, equal keys one number, different keys (however alike) different numbers, across
 * the tables' growth. The keys are what a ledger holds and what it could: the service's own forms,
 * texts that are each other's prefixes, letters of several bytes, the empty text, long texts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Keys16, KeysText } from "../src/integrityKeys.ts"

const encoder = new TextEncoder()

/** A deterministic stream of numbers in [0, 1). */
const random = (seed: number) => () => {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
  return seed / 4_294_967_296
}

const texts = (): Array<string> => {
  const next = random(7)
  const out: Array<string> = []
  for (let k = 0; k < 30_000; k++) {
    const n = Math.floor(next() * 12_000)
    switch (k % 6) {
      case 0:
        out.push(`agent:${n.toString(16).padStart(8, "0")}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`)
        break
      case 1:
        out.push(`ip:${n}`) // ip:1, ip:12, ip:123: each a prefix of the next
        break
      case 2:
        out.push(`ip:ü${n}${"ß".repeat(n % 5)}`)
        break
      case 3:
        out.push(n % 100 === 0 ? "" : `net-${"x".repeat(n % 70)}`)
        break
      case 4:
        out.push(`${n % 2 === 0 ? "a" : "b"}`.repeat(1 + (n % 9)))
        break
      default:
        // Past U+FFFF (UTF-16 orders it before U+FF21, UTF-8 after): the two orders of texts differ here.
        out.push(`voter ${n % 50} ${n % 3 === 0 ? "😀" : "Ａ"}${n}`)
    }
  }
  return out
}

/** The numbers a Map gives: the order each key is first seen. */
const reference = (keys: ReadonlyArray<string>): Array<number> => {
  const seen = new Map<string, number>()
  return keys.map((key) => {
    const known = seen.get(key)
    if (known !== undefined) return known
    seen.set(key, seen.size)
    return seen.size - 1
  })
}

describe("the integrity window's key tables", () => {
  it("number texts as a Map of their strings does, packed one after another as the window's bytes are", () => {
    const keys = texts()
    // Every text ended by a NUL, all in one buffer, as a chunk of the window arrives.
    const parts = keys.map((key) => encoder.encode(key))
    const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length + 1, 0))
    const ends: Array<number> = []
    let at = 0
    for (const part of parts) {
      bytes.set(part, at)
      at += part.length
      ends.push(at)
      at++
    }
    const view = new DataView(bytes.buffer)
    const table = new KeysText()
    let from = 0
    const numbers = ends.map((end) => {
      const number = table.add(bytes, view, from, end)
      from = end + 1
      return number
    })
    const expected = reference(keys)
    expect(numbers).toEqual(expected)
    expect(table.count).toBe(new Set(keys).size)
    expect(table.count).toBeGreaterThan(10_000)
    // Found by their strings, each as numbered; a text never added is not there.
    const distinct = [...new Set(keys)]
    expect(distinct.map((key) => table.find(key))).toEqual(distinct.map((_, k) => k))
    expect([table.find("agent:"), table.find("ip:"), table.find("voter 1 "), table.find("ip:ü")]).toEqual([-1, -1, -1, -1])
    // Sorted as JS sorts strings (the memory store's order), the texts read from their bytes.
    const { number, texts: sortedTexts } = table.sorted()
    const sorted = [...distinct].sort()
    expect([...sortedTexts]).toEqual(sorted)
    expect(sortedTexts.length).toBe(distinct.length)
    expect(distinct.map((_, k) => sortedTexts[number[k]!])).toEqual(distinct)
    expect(sorted.some((text, k) => k > 0 && Buffer.compare(Buffer.from(sorted[k - 1]!), Buffer.from(text)) > 0)).toBe(true)
  })

  it("number 16-byte keys as a Map of their hex does, and sort them as their bytes", () => {
    const next = random(11)
    const count = 40_000
    const bytes = new Uint8Array(count * 16)
    // Keys that differ in one byte only, at every place, and repeats.
    for (let k = 0; k < count; k++) {
      const n = Math.floor(next() * 9_000)
      bytes[k * 16 + (n % 16)] = 1 + (n % 251)
      const other = k * 16 + ((n >> 4) % 16)
      bytes[other] = bytes[other]! ^ (n >> 8)
    }
    const hex = Array.from({ length: count }, (_, k) => Buffer.from(bytes.subarray(k * 16, k * 16 + 16)).toString("hex"))
    const view = new DataView(bytes.buffer)
    const table = new Keys16()
    const numbers = hex.map((_, k) => table.add(view, k * 16))
    expect(numbers).toEqual(reference(hex))
    const distinct = [...new Set(hex)]
    expect(table.count).toBe(distinct.length)
    const order = table.sorted()
    const sorted = [...distinct].sort()
    expect(Array.from(order, (key) => distinct[key]!)).toEqual(sorted)
    // Written out in that order, in place: every key's bytes, sorted.
    const written = table.bytesInOrder(order)
    expect(Array.from({ length: distinct.length }, (_, k) => Buffer.from(written.subarray(k * 16, k * 16 + 16)).toString("hex"))).toEqual(
      sorted
    )
    expect(Array.from(order)).toEqual(Array.from(order, (_, k) => k))
  })
})
