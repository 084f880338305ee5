/**
 * The network an address stands for, as a voter. An IPv4 address is one
 * client. An IPv6 address is not: a single subscriber routinely holds a /64 (and
 * picks a new address in it for every connection), so counting addresses would
 * give one machine 2^64 votes. One live vote per product is per /64 instead.
 *
 * Networks nest (docs/threat-model.md, "An attacker with many addresses"): a /48
 * is one site, free from a tunnel broker with 65,536 /64s in it, and a /24 of
 * IPv4 is a neighbourhood of a provider or a proxy farm. So budgets apply at each
 * level an address belongs to: IPv6 /64, /56, /48 and /32; IPv4 /32, /24 and /16.
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

const dotted = (high: number, low: number): string => [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".")

/**
 * The IPv4 address an IPv6 address stands for, where it carries one: whoever holds the IPv4 address holds
 * the IPv6 one, so it is that client, with that client's budgets (else one IPv4 host would register several
 * times an address's budget a day through its 6to4 /48, NAT64 and IPv4-compatible spellings).
 * - `::ffff:a.b.c.d` (mapped: how a dual-stack socket reports IPv4 clients) and `::ffff:0:a.b.c.d` (translated);
 * - `::a.b.c.d` (IPv4-compatible, deprecated), but not `::1` and the other few addresses below `::1:0:0`;
 * - `64:ff9b::a.b.c.d` (RFC 6052's well-known NAT64 prefix: an IPv4 client behind a translator);
 * - `2002:aabb:ccdd::/48` (6to4: the /48 of IPv4 aa.bb.cc.dd);
 * - `2001:0:…` (Teredo: the client's IPv4 address, each bit inverted, in the last 32 bits).
 */
const embeddedIPv4 = (groups: ReadonlyArray<number>): string | undefined => {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number]
  const zeroTo = (n: number) => groups.slice(0, n).every((g) => g === 0)
  if (zeroTo(5) && g5 === 0xffff) return dotted(g6, g7)
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return dotted(g6, g7)
  if (zeroTo(6) && g6 !== 0) return dotted(g6, g7)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return dotted(g6, g7)
  if (g0 === 0x2002) return dotted(g1, g2)
  if (g0 === 0x2001 && g1 === 0) return dotted(g6 ^ 0xffff, g7 ^ 0xffff)
  return undefined
}

/** The canonical network of `address`: an IPv4 address (one an IPv6 address carries too), or an IPv6 /64 prefix; anything else as given. */
export const networkOf = (address: string): string => {
  if (isIPv4(address)) return address
  const groups = groupsOf(address)
  if (groups === undefined) return address
  const v4 = embeddedIPv4(groups)
  if (v4 !== undefined) return v4
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`
}

/** A level of an address's networks: its family and prefix length. */
export type NetworkLevel = "v6/64" | "v6/56" | "v6/48" | "v6/32" | "v4/32" | "v4/24" | "v4/16"

export const NETWORK_LEVELS: ReadonlyArray<NetworkLevel> = ["v6/64", "v6/56", "v6/48", "v6/32", "v4/32", "v4/24", "v4/16"]

/** The neighbourhood an address votes from, for the integrity pass's evidence: an IPv6 /48 (a site), an IPv4 /24. */
export const NEIGHBOURHOOD: Readonly<Record<"v4" | "v6", NetworkLevel>> = { v6: "v6/48", v4: "v4/24" }

const prefixOfGroups = (groups: ReadonlyArray<number>, bits: number): string => {
  const kept = groups.map((group, i) => {
    const from = i * 16
    if (from >= bits) return 0
    const keep = Math.min(16, bits - from)
    return keep === 16 ? group : group & (0xffff << (16 - keep)) & 0xffff
  })
  return `${kept.map((g) => g.toString(16)).join(":")}/${bits}`
}

/**
 * Every network `address` belongs to, largest prefix first (its own /64 or /32 first): each level's
 * canonical prefix. An IPv6 address that carries an IPv4 one (embeddedIPv4) is IPv4. Anything that is not an address has
 * one level of its own, as given.
 */
export const networksOf = (address: string): ReadonlyArray<{ readonly level: NetworkLevel; readonly prefix: string }> => {
  const own = networkOf(address)
  if (isIPv4(own)) {
    const [a, b, c] = own.split(".")
    return [
      { level: "v4/32", prefix: own },
      { level: "v4/24", prefix: `${a}.${b}.${c}.0/24` },
      { level: "v4/16", prefix: `${a}.${b}.0.0/16` }
    ]
  }
  const groups = groupsOf(address)
  if (groups === undefined) return [{ level: "v4/32", prefix: own }]
  return (["v6/64", "v6/56", "v6/48", "v6/32"] as const).map((level) => ({
    level,
    prefix: prefixOfGroups(groups, Number(level.slice(3)))
  }))
}

/** Budgets per level of a client's networks: how many of something each network may spend in a window. */
export type NetworkBudgets = Readonly<Partial<Record<NetworkLevel, number>>>

/**
 * Votes without a proven identity per product per day (ANONYMOUS_VOTES_PER_NETWORK): a client's own
 * network may vote and change its mind once; a /48 is one site, a /24 one neighbourhood.
 */
export const DEFAULT_ANONYMOUS_VOTES: NetworkBudgets = {
  "v6/64": 2,
  "v6/56": 4,
  "v6/48": 8,
  "v6/32": 64,
  "v4/32": 2,
  "v4/24": 8,
  "v4/16": 64
}

/** The address's own level of the registration budget (AGENT_REGISTRATIONS_PER_ADDRESS): new agents a day. */
export const DEFAULT_REGISTRATIONS_PER_ADDRESS = 5

/** New agents per day at the levels above an address's own (AGENT_REGISTRATIONS_PER_NETWORK). */
export const DEFAULT_REGISTRATIONS: NetworkBudgets = { "v6/56": 8, "v6/48": 10, "v6/32": 100, "v4/24": 20, "v4/16": 200 }

/**
 * Key directories a client network may have fetched in a minute for signed requests
 * (KEY_DIRECTORY_FETCHES_PER_NETWORK): a directory not in the cache is fetched from a URL the
 * client chose, so a /48's 65,536 /64s must not make 65,536 times one client's fetches. Nested as
 * the connection caps are: a /56 or /24 twice an address's, a /48 four times, a /32 or /16 eight.
 */
export const DEFAULT_DIRECTORY_FETCHES: NetworkBudgets = {
  "v6/64": 10,
  "v6/56": 20,
  "v6/48": 40,
  "v6/32": 80,
  "v4/32": 10,
  "v4/24": 20,
  "v4/16": 80
}

/** Budgets as their setting is written: `v6/48=8,v4/24=8`. */
export const formatBudgets = (budgets: NetworkBudgets): string =>
  NETWORK_LEVELS.filter((level) => budgets[level] !== undefined)
    .map((level) => `${level}=${budgets[level]}`)
    .join(",")
