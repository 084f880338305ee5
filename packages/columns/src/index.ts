/**
 * Giving a large typed array's memory back at once. Dropped, a column of ten million votes (40 MB) stays
 * in the process until V8's next full collection, which the integrity pass, making little garbage on the
 * JS heap, may not reach before its peak (docs/benchmarks.md). Detaching its buffer (ArrayBuffer
 * transfer, ES2024) frees it now; every view of it is left empty.
 */
export const free = (array: { readonly buffer: ArrayBufferLike }): void => {
  ;(array.buffer as ArrayBuffer).transfer(0)
}

/**
 * `array` with room for `size` elements, its elements kept, the old memory freed at once: moved (ArrayBuffer
 * transfer) where the array starts its buffer, else copied.
 */
export const grown = <A extends Int32Array | Uint16Array | Uint8Array | Float64Array>(array: A, size: number): A => {
  const make = array.constructor as new (from: number | ArrayBuffer) => A
  if (array.byteOffset !== 0) {
    const bigger = new make(size)
    bigger.set(array as never)
    return bigger
  }
  return new make((array.buffer as ArrayBuffer).transfer(size * array.BYTES_PER_ELEMENT))
}
