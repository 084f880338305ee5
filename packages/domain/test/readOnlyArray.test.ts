/**
 * readOnlyArray (src/readOnlyArray.ts): what the integrity pass reads of the window's ids and texts and of a
 * verdict's keys behaves as the read-only array it stands for, each item made when read, and nothing writes it.
 */
import { describe, expect, it } from "@effect/vitest"
import { readOnlyArray } from "../src/index.ts"

describe("readOnlyArray", () => {
  it("reads as the array it stands for: index, length, iteration, the methods that read", () => {
    const made: Array<number> = []
    const squares = readOnlyArray(5, (k) => {
      made.push(k)
      return k * k
    })
    expect(squares.length).toBe(5)
    expect(squares[3]).toBe(9)
    expect(made).toEqual([3])
    expect([...squares]).toEqual([0, 1, 4, 9, 16])
    expect(squares.map((x) => x + 1)).toEqual([1, 2, 5, 10, 17])
    expect(squares.indexOf(16)).toBe(4)
    expect(squares.slice(1, 3)).toEqual([1, 4])
    expect(Array.from(squares)).toEqual([0, 1, 4, 9, 16])
    expect(Array.isArray(squares)).toBe(true)
    expect(JSON.stringify(squares)).toBe("[0,1,4,9,16]")
    expect([2 in squares, 5 in squares, (-1) in squares]).toEqual([true, false, false])
  })

  it("has nothing past its ends or at keys that are not indices, and cannot be written", () => {
    const letters = readOnlyArray(3, (k) => "abc"[k]!)
    for (const key of ["3", "-1", "1.5", "01", "1e0", " 1"])
      expect((letters as unknown as Record<string, unknown>)[key], key).toBeUndefined()
    expect(() => {
      ;(letters as Array<string>)[0] = "z"
    }).toThrow(TypeError)
    expect(() => {
      ;(letters as Array<string>).push("d")
    }).toThrow(TypeError)
    expect([...letters]).toEqual(["a", "b", "c"])
    expect(readOnlyArray(0, () => 1)).toEqual([])
  })
})
