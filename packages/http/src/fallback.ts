/**
 * Requests no route takes. A 405 (with `Allow`) only when the path is served
 * under other methods; a path the router refused although its method is served
 * there is bad input: a parameter over the router's 100-character limit is a 400
 * naming it, as the same parameter of 81 characters is (no id or slug is that
 * long), and so is broken percent-encoding. Paths come from the API definition.
 */
import type { HttpServerRequest } from "effect/http"
import type { FieldIssue } from "@productdir/contract"
import { servedPaths } from "@productdir/edge/catalogGuide"
import { FAVICON_PATH } from "./favicon.ts"
import { badFields, problem } from "@productdir/edge/problems/problemResponses"

const toPattern = (path: string): RegExp => new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^/}]+\}/g, "[^/]+")}/?$`)

/** Every path served: those GET / lists, and the docs page's icon. */
const routes = [...servedPaths(), { method: "GET", path: FAVICON_PATH }].map((entry) => ({ ...entry, pattern: toPattern(entry.path) }))

const hasBrokenEncoding = (path: string): boolean => {
  try {
    decodeURIComponent(path)
    return false
  } catch {
    return true
  }
}

/** The router's limit on a path parameter: longer, it takes no route. */
const ROUTER_PARAM_LIMIT = 100

/** The path parameters of `template` (`/entities/{slug}`) that `path` fills with more than the router takes. */
const overLong = (template: string, path: string): Array<FieldIssue> => {
  const names = template.split("/")
  return path.split("/").flatMap((segment, k) => {
    const name = /^\{(.+)\}$/.exec(names[k] ?? "")?.[1]
    return name !== undefined && segment.length > ROUTER_PARAM_LIMIT
      ? [{ path: ["params", name], message: `is longer than any ${name} can be (ids are UUIDs, slugs at most 80 characters)` }]
      : []
  })
}

export const unrouted = (request: HttpServerRequest.HttpServerRequest) => {
  const path = request.url.split("?")[0] ?? "/"
  const method = request.method === "HEAD" ? "GET" : request.method
  const allowed: Array<string> = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))]
  if (hasBrokenEncoding(path)) {
    return problem(400, `The path ${path} has broken percent-encoding: every % must start an escape such as %2F.`)
  }
  if (allowed.includes(method)) {
    const route = routes.find((r) => r.method === method && r.pattern.test(path))!
    const errors = overLong(route.path, path)
    if (errors.length > 0) {
      return badFields(errors)
    }
    return problem(
      404,
      `Nothing is served at ${path}: no product has that id or slug (ids are UUIDs, slugs at most 80 characters). Find products with GET /products?q=<words>.`
    )
  }
  if (allowed.length > 0) {
    // Every GET is also served as HEAD (Node answers it without the body): the Allow header says so.
    const methods = allowed.includes("GET") ? [...allowed, "HEAD"] : allowed
    return problem(405, `${request.method} is not allowed on ${path}; use ${methods.join(" or ")}.`, { allow: methods.join(", ") })
  }
  return problem(404, `Nothing is served at ${path}. GET / lists every path.`)
}
