/**
 * Which domain a publisher claims and which products it owns (docs/decisions.md, "Publishers"): the registrable
 * domain, by the Public Suffix List (`tldts`, which ships the list; not a hand-written one). `shop.acme.co.uk` and
 * `acme.co.uk` are one publisher's, `acme.github.io` is its own (a private suffix: each user's site is apart), and a
 * public suffix alone (`co.uk`, `github.io`) is nobody's.
 */
import { parse } from "tldts"
import { publicWebsiteIssue } from "../record/publicWebsite.ts"

/** A claimed name as a publisher wrote it: a host, or a URL whose host is meant. */
const hostOf = (claimed: string): string => {
  const text = claimed.trim().toLowerCase()
  const host = /^[a-z][a-z0-9+.-]*:\/\//u.test(text) ? text.replace(/^[a-z][a-z0-9+.-]*:\/\//u, "").split(/[/?#]/u)[0]! : text
  return host.replace(/\.$/u, "")
}

/** The registrable domain a claim names, or why it names none (words that finish "the domain …"). */
export const claimedDomain = (claimed: string): { readonly domain: string } | { readonly issue: string } => {
  const host = hostOf(claimed)
  if (host.length === 0 || host.length > 253) return { issue: "must be a domain name, like acme.com" }
  const issue = publicWebsiteIssue(`https://${host}/`)
  if (issue !== undefined) return { issue: issue.replace(/^must name a public host/u, "must be a public domain name") }
  const parsed = parse(host, { allowPrivateDomains: true })
  if (parsed.isIp === true || parsed.domain === null || parsed.publicSuffix === null) {
    return { issue: `must be a registrable domain: "${host}" is a public suffix, which no one owns` }
  }
  return { domain: parsed.domain }
}

/** The registrable domain of a product's website, or undefined when it has none. */
export const websiteDomain = (website: string): string | undefined => {
  const parsed = parse(website, { allowPrivateDomains: true })
  return parsed.isIp === true || parsed.hostname === null ? undefined : (parsed.domain ?? undefined)
}
