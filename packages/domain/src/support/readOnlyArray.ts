/**
 * An array whose items are made when read, for the integrity pass's large lists: the PostgreSQL window
 * keeps a million product ids and a quarter of a million voters' texts as their bytes (tens of MB less
 * than as strings, at the pass's peak), and a verdict's tens of thousands of vote keys are made as the
 * store writes them. What it hands over looks like the read-only array asked for (index, length,
 * iteration, the array methods that read).
 */

/** `count` items, item `k` made by `at(k)` each time it is read. */
export const readOnlyArray = <A>(count: number, at: (k: number) => A): ReadonlyArray<A> => {
  const index = (key: string | symbol): number | undefined => {
    if (typeof key !== "string") return undefined
    const k = Number(key)
    return Number.isInteger(k) && k >= 0 && k < count && String(k) === key ? k : undefined
  }
  return new Proxy([] as Array<A>, {
    get: (target, key, receiver) => {
      if (key === "length") return count
      const k = index(key)
      return k === undefined ? Reflect.get(target, key, receiver) : at(k)
    },
    has: (target, key) => index(key) !== undefined || Reflect.has(target, key),
    set: () => false,
    deleteProperty: () => false
  })
}
