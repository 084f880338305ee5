/**
 * The network an address stands for, as a voter. An IPv4 address is one
 * client. An IPv6 address is not: a single subscriber routinely holds a /64 (and
 * picks a new address in it for every connection), so counting addresses would
 * give one machine 2^64 votes. One live vote per product is per /64 instead.
 */
import { isIPv4, isIPv6 } from "node:net"

/** The eight 16-bit groups of an IPv6 address, or undefined when it is not one. */
const groupsOf = (address: string): Array<number> | undefined => {
  const zoneless = address.split("%")[0]!
  if (!isIPv6(zoneless)) return undefined
  let text = zoneless
  // A trailing dotted quad (::ffff:1.2.3.4) is two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number]
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.includes("::") ? (text.split("::") as [string, string]) : [text, undefined]
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  return tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
}

/** The canonical network of `address`: an IPv4 address, or an IPv6 /64 prefix; anything else as given. */
export const networkOf = (address: string): string => {
  if (isIPv4(address)) return address
  const groups = groupsOf(address)
  if (groups === undefined) return address
  // An IPv4 address mapped into IPv6 (how a dual-stack socket reports IPv4 clients) is that IPv4 address.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".")
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`
}
