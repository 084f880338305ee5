/**
 * The route a request path belongs to, as OpenTelemetry's `http.route` wants it: the template
 * (`/products/{id}`), never the path itself, so a metric has one series per route however many
 * products there are. Paths no route serves share one label, `unmatched`: a scanner walking
 * random paths cannot grow the series. A walk down a tree of path segments, no regular expression
 * and no allocation beyond the split: it runs for every request, the cache's reads included.
 */
import { JSONRPC_PATH, JWKS_PATH, REST_PATH } from "@productdir/a2a/card"
import { DOCS_PATH } from "@productdir/http/docsPage"
import { FAVICON_PATH } from "@productdir/http/favicon"
import { ROUTES } from "@productdir/domain"
import { templateOf } from "@productdir/edge/templateOf"

export const UNMATCHED = "unmatched"

const UPPER = /[A-Z]/u

/** Every path the server answers, in the router's form (`:name` a segment, a trailing `*` the rest). */
export const SERVED_PATHS: ReadonlyArray<string> = [
  ...Object.values(ROUTES),
  "/openapi.json",
  DOCS_PATH,
  FAVICON_PATH,
  JSONRPC_PATH,
  `${REST_PATH}/*`,
  JWKS_PATH
]

interface Node {
  readonly children: Map<string, Node>
  param: Node | undefined
  /** The template of the route ending here. */
  route: string | undefined
  /** The template of a route taking every path below (`/a2a/rest/*`). */
  rest: string | undefined
}

const node = (): Node => ({ children: new Map(), param: undefined, route: undefined, rest: undefined })

/** A matcher for `paths`: a path to its route template, or UNMATCHED. */
export const makeRouteMatcher = (paths: ReadonlyArray<string>): ((path: string) => string) => {
  const root = node()
  for (const path of paths) {
    const template = templateOf(path)
    let at = root
    const segments = path.split("/").slice(1)
    if (path === "/") {
      root.route = template
      continue
    }
    for (const segment of segments) {
      if (segment === "*") {
        at.rest = template
        break
      }
      if (segment.startsWith(":")) {
        at.param ??= node()
        at = at.param
      } else {
        let next = at.children.get(segment)
        if (next === undefined) {
          next = node()
          at.children.set(segment, next)
        }
        at = next
      }
    }
    if (!path.endsWith("*")) at.route = template
  }
  // Paths as the router reads them (effect's FindMyWay, as configured by HttpRouter): a `;` ends the path
  // (`/products;jsessionid=1`), repeated and trailing slashes are ignored, and static segments are matched without
  // regard to case (`POST /VOTE`). A request the router serves is labelled with its route, not `unmatched`.
  return (whole) => {
    const semicolon = whole.indexOf(";")
    const path = semicolon === -1 ? whole : whole.slice(0, semicolon)
    let at: Node | undefined = root
    let rest: string | undefined
    let start = 1
    while (at !== undefined && start < path.length) {
      if (at.rest !== undefined) rest = at.rest
      let end = path.indexOf("/", start)
      if (end === -1) end = path.length
      if (end > start) {
        const segment = path.slice(start, end)
        // Lower-cased only where a static segment could match and the segment has a capital: a product's id, the
        // usual segment here, is looked up once, with no string made for it.
        const folded: Node | undefined = at.children.size > 0 && UPPER.test(segment) ? at.children.get(segment.toLowerCase()) : undefined
        at = at.children.get(segment) ?? folded ?? at.param
      }
      start = end + 1
    }
    return at?.route ?? rest ?? UNMATCHED
  }
}

/** The server's routes. */
export const routeOf = makeRouteMatcher(SERVED_PATHS)

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"])

/** The request method as OpenTelemetry labels it: a known one, else `_OTHER` (any token is a method). */
export const methodOf = (method: string): string => (METHODS.has(method) ? method : "_OTHER")
