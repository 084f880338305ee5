import { describe, expect, it } from "@effect/vitest"
import { AgentKeys, networkOf } from "../src/index.ts"

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

  it("anything else is kept as given", () => {
    expect(networkOf("unknown")).toBe("unknown")
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
