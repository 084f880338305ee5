/**
 * A product's website, as the directory serves it to agents that follow it (docs/threat-model.md, "Agents as
 * readers"): an http(s) URL to a public host name. An agent that fetches a product's website must not be sent to
 * the cloud's metadata service (169.254.169.254), to a service on its own machine (127.0.0.1:8080/admin), to a name
 * only an internal network resolves, or to a host other than the one it reads (`https://tallyhouse.example@evil.example`
 * goes to evil.example). Checked where a record comes in (the import); the WHATWG URL parser reads the host as a
 * browser or fetch would, so `http://2852039166/` is the IP address it is.
 */
import { Schema } from "effect"
import { HttpUrl } from "./ProductContent.ts"

/**
 * Names no public resolver answers for: RFC 6761 and 6762's special-use names, RFC 8375's home.arpa, and the suffixes
 * intranets use (ICANN's reserved .internal among them). `.example` is public documentation's name and stays allowed.
 */
const INTERNAL_SUFFIXES = [
  "localhost",
  "local",
  "localdomain",
  "internal",
  "intranet",
  "private",
  "corp",
  "home",
  "lan",
  "home.arpa",
  "arpa",
  "invalid",
  "test",
  "onion"
]

/**
 * The WHATWG URL parser: a global of every runtime this package runs in (Node.js, browsers, Deno, Bun); the package
 * compiles without any runtime's types, so the part used here is declared.
 */
declare const URL: new (
  input: string
) => { readonly protocol: string; readonly username: string; readonly password: string; readonly hostname: string }

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/

/** Why `url` is not a public website, in words that finish "website …"; undefined when it is one. */
export const publicWebsiteIssue = (url: string): string | undefined => {
  let parsed: InstanceType<typeof URL>
  try {
    parsed = new URL(url)
  } catch {
    return "must be an absolute http(s) URL"
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "must be an http(s) URL"
  if (parsed.username !== "" || parsed.password !== "")
    return `must not name a user before its host ("${parsed.username}@"): a reader sees the name before the @, a browser goes to ${parsed.hostname}`
  const host = parsed.hostname.replace(/\.$/, "")
  if (host.startsWith("[") || IPV4.test(host)) return `must name a public host, not an IP address (${host})`
  if (!host.includes(".")) return `must name a public host: "${host}" is a name only a local network knows`
  const internal = INTERNAL_SUFFIXES.find((suffix) => host === suffix || host.endsWith(`.${suffix}`))
  if (internal !== undefined) return `must name a public host: .${internal} names are not on the public internet`
  return undefined
}

/** An http(s) URL to a public host name: what an import accepts as a website. */
export const PublicWebsite = HttpUrl.check(Schema.makeFilter((url: string) => publicWebsiteIssue(url) ?? true)).annotate({
  description: "An http(s) URL to a public host name: no IP address, no user before the host, no internal name",
  examples: ["https://example.com"]
})
