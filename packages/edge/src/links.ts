/**
 * Links in MCP tool results are absolute: an agent that got them from a tool
 * has no request URL to resolve a path against. The base is PUBLIC_URL, else the
 * origin the request came to. (The HTTP reads keep paths: relative to the URL
 * the client already has, and the same bytes for every host.)
 */
import { Option } from "effect"
import type { HttpServerRequest } from "effect/http"

/** Keys whose string values are links in the domain's shapes (cards, views, pages, categories). */
const LINK_KEYS = new Set(["href", "record", "agent_card", "agent_view", "products"])

export const baseUrlOf = (
  publicUrl: Option.Option<string>,
  request: Option.Option<HttpServerRequest.HttpServerRequest>
): string | undefined =>
  Option.getOrUndefined(publicUrl) ??
  Option.getOrUndefined(
    Option.flatMap(request, (r) => Option.fromNullishOr(r.headers.host).pipe(Option.map((host) => `${r.protocol ?? "http"}://${host}`)))
  )

/** `value` with every link path made absolute under `base`. */
export const absoluteLinks = <A>(value: A, base: string | undefined): A => {
  if (base === undefined) return value
  const walk = (v: unknown, key: string | undefined, inLinks: boolean): unknown => {
    if (typeof v === "string") return (inLinks || (key !== undefined && LINK_KEYS.has(key))) && v.startsWith("/") ? `${base}${v}` : v
    if (Array.isArray(v)) return v.map((item) => walk(item, undefined, inLinks))
    if (v === null || typeof v !== "object") return v
    return Object.fromEntries(Object.entries(v).map(([k, child]) => [k, walk(child, k, inLinks || k === "links")]))
  }
  return walk(value, undefined, false) as A
}
