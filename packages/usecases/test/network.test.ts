import { describe, expect, it } from "@effect/vitest"
import { AgentKeys, networkOf, networksOf } from "../src/index.ts"

describe("networkOf: the network an address votes as", () => {
  it("an IPv4 address is itself", () => {
    expect(networkOf("203.0.113.7")).toBe("203.0.113.7")
  })

  it("every address of one IPv6 /64 is one network, however it is written", () => {
    const forms = ["2001:db8:1:2::1", "2001:0db8:0001:0002:ffff:ffff:ffff:ffff", "2001:db8:1:2:abcd::9", "2001:DB8:1:2::1%eth0"]
    expect(new Set(forms.map(networkOf))).toEqual(new Set(["2001:db8:1:2::/64"]))
    expect(networkOf("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64")
    expect(networkOf("::1")).toBe("0:0:0:0::/64")
  })

  it("an IPv4 address mapped into IPv6 is the IPv4 address", () => {
    expect(networkOf("::ffff:198.51.100.4")).toBe("198.51.100.4")
    expect(networkOf("::ffff:c633:6404")).toBe("198.51.100.4")
  })

  it("an IPv6 address that carries an IPv4 address is that IPv4 address: 6to4, Teredo, NAT64, translated, compatible", () => {
    // 198.51.100.4 is c633:6404 in hexadecimal; Teredo carries it with every bit inverted (39cc:9bfb).
    for (const form of [
      "2002:c633:6404::1",
      "2002:c633:6404:ffff:1:2:3:4",
      "2001:0:4136:e378:8000:63bf:39cc:9bfb",
      "64:ff9b::198.51.100.4",
      "64:ff9b::c633:6404",
      "::ffff:0:198.51.100.4",
      "::198.51.100.4"
    ]) {
      expect(networkOf(form), form).toBe("198.51.100.4")
      expect(networksOf(form)[1], form).toEqual({ level: "v4/24", prefix: "198.51.100.0/24" })
    }
    // Not every address with zeros in front: loopback, and an ordinary global address.
    expect(networkOf("::1")).toBe("0:0:0:0::/64")
    expect(networkOf("2001:db8::c633:6404")).toBe("2001:db8:0:0::/64")
  })

  it("anything else is kept as given", () => {
    expect(networkOf("unknown")).toBe("unknown")
  })
})

describe("networksOf: the networks an address belongs to, nested", () => {
  it("an IPv6 address is in its /64, /56, /48 and /32", () => {
    expect(networksOf("2001:db8:abcd:12ff:1:2:3:4")).toEqual([
      { level: "v6/64", prefix: "2001:db8:abcd:12ff:0:0:0:0/64" },
      { level: "v6/56", prefix: "2001:db8:abcd:1200:0:0:0:0/56" },
      { level: "v6/48", prefix: "2001:db8:abcd:0:0:0:0:0/48" },
      { level: "v6/32", prefix: "2001:db8:0:0:0:0:0:0/32" }
    ])
  })

  it("the /64s of one /48 share the /48's prefix, whatever their own", () => {
    const of48 = (address: string) => networksOf(address).find((n) => n.level === "v6/48")!.prefix
    expect(new Set(["2001:db8:7:1::1", "2001:db8:7:ffff::9", "2001:DB8:7:42:a::b"].map(of48)).size).toBe(1)
    expect(of48("2001:db8:8:1::1")).not.toBe(of48("2001:db8:7:1::1"))
  })

  it("an IPv4 address is in its /32, /24 and /16, mapped or not", () => {
    const expected = [
      { level: "v4/32", prefix: "198.51.100.4" },
      { level: "v4/24", prefix: "198.51.100.0/24" },
      { level: "v4/16", prefix: "198.51.0.0/16" }
    ]
    expect(networksOf("198.51.100.4")).toEqual(expected)
    expect(networksOf("::ffff:198.51.100.4")).toEqual(expected)
  })
})

describe("API keys", () => {
  it("a new key is well formed, its hash is stable, and its hint is its start", () => {
    const key = AgentKeys.newApiKey()
    expect(AgentKeys.isWellFormed(key)).toBe(true)
    expect(AgentKeys.keyHash(key)).toMatch(/^[0-9a-f]{64}$/)
    expect(AgentKeys.keyHash(key)).toBe(AgentKeys.keyHash(key))
    expect(AgentKeys.keyHint(key)).toBe(key.slice(0, 8))
    expect(AgentKeys.newApiKey()).not.toBe(key)
  })

  it("anything that is not a key of ours is refused by shape", () => {
    for (const bad of ["", "pdk_", "pdk_short", `sk_${"a".repeat(43)}`, `pdk_${"a".repeat(42)}!`, `pdk_${"a".repeat(44)}`]) {
      expect(AgentKeys.isWellFormed(bad)).toBe(false)
    }
  })
})
