import { describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { seeded } from "@productdir/fixtures"
import { IdTable } from "../src/IdTable.ts"

/** UUIDv7 layout: 48 bits of milliseconds, then version 7 and random bits. */
const uuidv7 = (ms: number, random: () => number) => {
  const hex = (n: number, width: number) => Math.floor(n).toString(16).padStart(width, "0")
  const time = hex(ms, 12)
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${hex(random() * 0x1000, 3)}-${hex(0x8000 + random() * 0x4000, 4)}-${hex(random() * 2 ** 48, 12)}`
}

describe("IdTable", () => {
  it("tells apart ids that share their first 16 hex digits", () => {
    const table = new IdTable()
    const a = "0b7f3c8e-3b52-4c8e-9d0a-6f1f2d3c4b5a"
    const b = "0b7f3c8e-3b52-4c8e-9d0a-6f1f2d3c4b5b"
    const c = "0b7f3c8e-3b52-4c8e-ad0a-6f1f2d3c4b5a"
    expect(table.setIfAbsent(a, 1)).toBe(1)
    expect(table.setIfAbsent(b, 2)).toBe(2)
    expect(table.setIfAbsent(c, 3)).toBe(3)
    expect(table.setIfAbsent(a, 4)).toBe(1)
    expect([table.get(a), table.get(b), table.get(c), table.size]).toEqual([1, 2, 3, 3])
    expect(table.has("0b7f3c8e-3b52-4c8e-9d0a-6f1f2d3c4b5c")).toBe(false)
  })

  it("tells apart UUIDv7 ids made in the same millisecond, through every growth", () => {
    const random = seeded(7).next
    const ms = Date.UTC(2026, 10, 22)
    const ids = new Set<string>()
    while (ids.size < 50_000) ids.add(uuidv7(ms, random))
    const table = new IdTable(16)
    let position = 0
    for (const id of ids) expect(table.setIfAbsent(id, position++)).toBe(position - 1)
    expect(table.size).toBe(ids.size)
    position = 0
    for (const id of ids) expect(table.get(id)).toBe(position++)
  })

  it("agrees with a Map on random ids, repeats included", () => {
    const table = new IdTable()
    const oracle = new Map<string, number>()
    const pool = Array.from({ length: 5_000 }, () => randomUUID())
    for (let i = 0; i < 20_000; i++) {
      const id = pool[(i * 7919) % pool.length]!
      if (!oracle.has(id)) oracle.set(id, i)
      expect(table.setIfAbsent(id, i)).toBe(oracle.get(id))
    }
    expect(table.size).toBe(oracle.size)
  })

  it("holds a million ids in about 40 MB", () => {
    const table = new IdTable()
    for (let i = 0; i < 1_000_000; i++) {
      const hex = i.toString(16).padStart(12, "0")
      table.setIfAbsent(`00000000-0000-4000-8000-${hex}`, i)
    }
    expect(table.size).toBe(1_000_000)
    expect(table.bytes).toBeLessThanOrEqual(42 * 1024 * 1024)
  })
})
