/** TRUST_PROXY as hops: the address is the entry the nearest trusted proxy wrote, never one the client chose. */
import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { clientAddress } from "@productdir/edge/clients/clientAddress"

const from = (socket: string, forwardedFor?: string) =>
  HttpServerRequest.fromWeb(
    new Request("http://127.0.0.1/vote", { headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor } })
  ).modify({ remoteAddress: Option.some(socket) })

describe("clientAddress", () => {
  it("with no trusted proxy, the socket's address, whatever X-Forwarded-For says", () => {
    expect(clientAddress(from("192.0.2.1", "203.0.113.9"), 0)).toBe("192.0.2.1")
  })

  it("behind N proxies, the N-th entry from the right", () => {
    const chain = "6.6.6.6, 203.0.113.9, 10.0.0.2"
    expect(clientAddress(from("10.0.0.3", chain), 1)).toBe("10.0.0.2")
    expect(clientAddress(from("10.0.0.3", chain), 2)).toBe("203.0.113.9")
  })

  it("a client-written prefix never moves the address", () => {
    for (const prefix of ["1.1.1.1", "1.1.1.1, 2.2.2.2", "anything at all"]) {
      expect(clientAddress(from("10.0.0.3", `${prefix}, 198.51.100.7`), 1)).toBe("198.51.100.7")
    }
  })

  it("ports and brackets as proxies write them are understood; an entry that is not an IP falls back to the socket", () => {
    expect(clientAddress(from("10.0.0.3", "198.51.100.7:51234"), 1)).toBe("198.51.100.7")
    expect(clientAddress(from("10.0.0.3", "[2001:db8::7]:443"), 1)).toBe("2001:db8::7")
    expect(clientAddress(from("10.0.0.3", "2001:db8::7"), 1)).toBe("2001:db8::7")
    expect(clientAddress(from("10.0.0.3", "unknown"), 1)).toBe("10.0.0.3")
    expect(clientAddress(from("10.0.0.3", "<script>"), 1)).toBe("10.0.0.3")
  })

  it("fewer entries than trusted hops: the left-most, every entry having been written by a trusted proxy", () => {
    expect(clientAddress(from("10.0.0.3", "203.0.113.9"), 3)).toBe("203.0.113.9")
    expect(clientAddress(from("10.0.0.3"), 2)).toBe("10.0.0.3")
  })
})
