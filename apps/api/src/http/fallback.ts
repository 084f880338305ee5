/**
 * Requests no route takes. A 405 (with `Allow`) only when the path is served
 * under other methods; a path the router refused although its method is served
 * there (a parameter over the router's 100-character limit, broken percent-
 * encoding) names no product: 404, or 400 for the encoding. Paths come from the
 * API definition.
 */
import type { HttpServerRequest } from "effect/http"
import { servedPaths } from "../catalogGuide.ts"
import { problem } from "./problemResponses.ts"

const toPattern = (path: string): RegExp => new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^/}]+\}/g, "[^/]+")}/?$`)

const routes = servedPaths().map((entry) => ({ ...entry, pattern: toPattern(entry.path) }))

const hasBrokenEncoding = (path: string): boolean => {
  try {
    decodeURIComponent(path)
    return false
  } catch {
    return true
  }
}

export const unrouted = (request: HttpServerRequest.HttpServerRequest) => {
  const path = request.url.split("?")[0] ?? "/"
  const method = request.method === "HEAD" ? "GET" : request.method
  const allowed: Array<string> = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))]
  if (hasBrokenEncoding(path)) {
    return problem(400, `The path ${path} has broken percent-encoding: every % must start an escape such as %2F.`)
  }
  if (allowed.includes(method)) {
    return problem(
      404,
      `Nothing is served at ${path}: no product has that id or slug (ids are UUIDs, slugs at most 80 characters). Find products with GET /products?q=<words>.`
    )
  }
  if (allowed.length > 0) {
    return problem(405, `${request.method} is not allowed on ${path}; use ${allowed.join(" or ")}.`, { allow: allowed.join(", ") })
  }
  return problem(404, `Nothing is served at ${path}. GET / lists every path.`)
}
